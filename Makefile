# kptkit: the README's commands call these targets.
GO      ?= go
TOOLS   := $(CURDIR)/.tools/bin
KUSTOMIZE_VERSION := v5.5.0
export PATH := $(CURDIR)/bin:$(TOOLS):$(PATH)

.PHONY: all build test unit e2e bench fuzz golden demo fmt vet lint tools images clean

all: build

## build: every function binary and kptkit into bin/ (not functions/internal/:
## the identity binary the benchmarks measure against)
build:
	$(GO) build -o bin/ $$($(GO) list ./functions/... | grep -v /internal/) ./cmd/kptkit

## test: unit, golden and e2e tests with the race detector, then the tests
## over the real-world corpus (too slow under -race)
test: tools
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -run Corpus ./pkg/...

## unit: the tests that need no kpt or kustomize
unit:
	$(GO) test -race -count=1 $$($(GO) list ./... | grep -v /examples)

## e2e: the examples through the real kpt and kustomize, twice each
e2e: tools
	$(GO) test -count=1 ./examples/...

## bench: the benchmarks (figures go in each function's README and the
## README); the fleet's at 1,000 and 10,000 variants
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 ./pkg/... ./functions/...
	KPTKIT_BENCH_LARGE=1 $(GO) test -run='^$$' -bench=BenchmarkFleet -benchtime=1x -count=1 ./cmd/kptkit

## fuzz: every fuzz target for FUZZTIME (default 10s) each
FUZZTIME ?= 10s
fuzz:
	@for pkg in $$($(GO) list ./pkg/...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$t"; $(GO) test -run='^$$' -fuzz="^$$t$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=2s $$pkg || exit 1; \
	  done; \
	done

## golden: rewrite the expected outputs of golden tests and examples
golden: tools
	$(GO) test ./pkg/... ./examples/... -run 'Golden|Examples' -update

## demo: render example packages with kpt and show what changed
demo: build tools
	@bash docs/demo.sh

## images: one OCI image per function into out/images, without Docker
images: build
	bin/kptkit images build --layout out/images

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...

## lint: vet, and fail if gofmt would change anything
lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## tools: check for kpt, install kustomize into .tools/bin when missing
tools:
	@command -v kpt >/dev/null || { echo "kpt is missing: apt-get install google-cloud-cli-kpt (see README)"; exit 1; }
	@command -v kustomize >/dev/null || GOBIN=$(TOOLS) $(GO) install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)

clean:
	rm -rf bin out
