package evaluator_test

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the generated code")

// generated are the files protoc writes from evaluator.proto.
var generated = []string{"evaluator.pb.go", "evaluator_grpc.pb.go"}

// protocVersion is the line naming protoc's version, which differs from
// one protoc to another and nowhere else.
var protocVersion = regexp.MustCompile(`(?m)^// (\t|- )protoc +v.*$`)

// TestGenerated regenerates the Go code from evaluator.proto with the
// go.mod tools and compares it with the checked-in files (with -update,
// rewrites them). It needs protoc on PATH and skips without it.
func TestGenerated(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		t.Skip("protoc is not on PATH (apt-get install protobuf-compiler)")
	}
	tmp := t.TempDir()
	build := exec.Command("go", "build", "-o", tmp+"/",
		"google.golang.org/protobuf/cmd/protoc-gen-go", "google.golang.org/grpc/cmd/protoc-gen-go-grpc")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cannot build the protoc plugins: %v\n%s", err, out)
	}
	out := filepath.Join(tmp, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(protoc,
		"--plugin=protoc-gen-go="+filepath.Join(tmp, "protoc-gen-go"),
		"--plugin=protoc-gen-go-grpc="+filepath.Join(tmp, "protoc-gen-go-grpc"),
		"--go_out="+out, "--go_opt=paths=source_relative",
		"--go-grpc_out="+out, "--go-grpc_opt=paths=source_relative",
		"-I", ".", "evaluator.proto")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, b)
	}
	for _, name := range generated {
		want, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(name, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(withoutProtoc(want), withoutProtoc(got)); d != "" {
			t.Errorf("%s is not what evaluator.proto generates (go test -run TestGenerated -update) (-want +got):\n%s", name, d)
		}
	}
}

func withoutProtoc(b []byte) string {
	return protocVersion.ReplaceAllString(string(b), "// protoc")
}
