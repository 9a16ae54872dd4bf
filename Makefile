# kptkit: the README's commands call these targets.
GO      ?= go
TOOLS   := $(CURDIR)/.tools/bin
KUSTOMIZE_VERSION := v5.5.0
export PATH := $(CURDIR)/bin:$(TOOLS):$(PATH)

# The version and revision `kptkit version` and every function's --version
# print: the tag at HEAD, else the pseudo-version `go install ...@<commit>`
# would record (v0.0.0-<commit time>-<12 hex>, or vX.Y.(Z+1)-0.<time>-<hex>
# after a tag vX.Y.Z), +dirty with uncommitted changes. The Go toolchain
# records no VCS information in a git worktree or with -buildvcs=false, so
# it is stamped here; outside git both are empty and the binaries say so.
GIT_REVISION := $(shell git rev-parse HEAD 2>/dev/null)
VERSION ?= $(shell git describe --tags --match 'v[0-9]*' --exact-match 2>/dev/null || \
  { base=$$(git describe --tags --match 'v[0-9]*' --abbrev=0 2>/dev/null); \
    time=$$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S 2>/dev/null) && \
    rev=$$(git rev-parse --short=12 HEAD) && \
    if [ -n "$$base" ]; then echo "$$base" | awk -F. -v t="$$time" -v r="$$rev" '{ printf "%s.%s.%d-0.%s-%s", $$1, $$2, $$3+1, t, r }'; \
    else echo "v0.0.0-$$time-$$rev"; fi; })$(shell [ -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && echo +dirty)
LDFLAGS := -X github.com/kptkit/kptkit/internal/version.version=$(VERSION) \
  -X github.com/kptkit/kptkit/internal/version.revision=$(GIT_REVISION)

.PHONY: all build test unit e2e bench fuzz golden demo fmt vet lint tools images clean

all: build

## build: every function binary and kptkit into bin/ (not functions/internal/:
## the identity binary the benchmarks measure against)
build:
	@echo "make build: compiling every function and kptkit into bin/ (the first time, with an empty Go build cache, this takes a few minutes; then seconds)"
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ $$($(GO) list ./functions/... | grep -v /internal/) ./cmd/kptkit

## test: unit, golden and e2e tests with the race detector, then the tests
## over the real-world corpus (too slow under -race)
test: tools
	@echo "make test: go test -race ./... first compiles every package with the race detector (minutes the first time), then prints a line for each package; about 3 minutes in all on 2 cores with a warm cache"
	$(GO) test -race -count=1 ./...
	@echo "make test: the Corpus tests over the Nephio catalog, without -race (found above the checkout or in \$$KPTKIT_CORPUS, else skipped)"
	$(GO) test -count=1 -run Corpus ./pkg/... ./cmd/... ./internal/...

## unit: the tests that need no kpt or kustomize
unit:
	$(GO) test -race -count=1 $$($(GO) list ./... | grep -v /examples)

## e2e: the examples through the real kpt and kustomize, twice each
e2e: tools
	$(GO) test -count=1 ./examples/...

## bench: the benchmarks (figures go in each function's README and the
## README); the fleet's at 1,000 and 10,000 variants; kptkit render against
## kpt fn render in pairs; kptkit function-runner's calls against fork and exec
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 ./pkg/... ./functions/... ./internal/...
	$(GO) test -run='^$$' -bench=BenchmarkFunctionRunner -count=1 ./cmd/kptkit
	KPTKIT_BENCH_LARGE=1 $(GO) test -run='^$$' -bench=BenchmarkFleet -benchtime=1x -count=1 ./cmd/kptkit
	$(GO) test -run='^$$' -bench=BenchmarkRenderVsKpt -benchtime=1x -count=1 -timeout=60m ./cmd/kptkit

## fuzz: every fuzz target for FUZZTIME (default 10s) each
FUZZTIME ?= 10s
fuzz:
	@for pkg in $$($(GO) list ./pkg/... ./internal/... ./cmd/...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$t"; $(GO) test -run='^$$' -fuzz="^$$t$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=2s $$pkg || exit 1; \
	  done; \
	done

## golden: rewrite the expected outputs of golden tests and examples, the
## kinds' JSON Schemas (schemas/) and the CLI's help texts
golden: tools
	$(GO) test ./pkg/... ./examples/... -run 'Golden|Examples|Schemas' -update
	$(GO) test ./cmd/kptkit -run OneVoice -update

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
	@command -v kustomize >/dev/null || { echo "make tools: installing kustomize $(KUSTOMIZE_VERSION) into .tools/bin (once; needs the network)"; \
	  GOBIN=$(TOOLS) $(GO) install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION); }

clean:
	rm -rf bin out
