package fnrunner

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/render"
)

// pythonClient is a client that shares no code with this one: Python's
// grpc (Debian's python3-grpcio), the messages encoded by hand from the
// wire format. For each call on its command line (IMAGE=FILE, or "health")
// it prints a JSON line: the answer's fields, or its status code's name
// and message.
const pythonClient = `
import grpc, json, sys

def varint(n):
    out = b""
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])

def field(num, data):
    return varint(num << 3 | 2) + varint(len(data)) + data

def fields(msg):
    out, i = {}, 0
    while i < len(msg):
        key, shift = 0, 0
        while True:
            b = msg[i]; i += 1
            key |= (b & 0x7f) << shift; shift += 7
            if b < 0x80: break
        n, shift = 0, 0
        while True:
            b = msg[i]; i += 1
            n |= (b & 0x7f) << shift; shift += 7
            if b < 0x80: break
        if key & 7 == 0:
            out[key >> 3] = n
        else:
            out[key >> 3] = msg[i:i+n]; i += n
    return out

channel = grpc.insecure_channel(sys.argv[1])
evaluate = channel.unary_unary("/evaluator.FunctionEvaluator/EvaluateFunction")
check = channel.unary_unary("/grpc.health.v1.Health/Check")
for arg in sys.argv[2:]:
    try:
        if arg == "health":
            status = fields(check(b"", timeout=30)).get(1, 0)
            print(json.dumps({"health": status}))
            continue
        image, path = arg.split("=", 1)
        rl = open(path, "rb").read()
        got = fields(evaluate(field(1, rl) + field(2, image.encode()), timeout=30))
        print(json.dumps({"resource_list": got.get(1, b"").decode(), "log": got.get(2, b"").decode()}))
    except grpc.RpcError as e:
        print(json.dumps({"code": e.code().name, "message": e.details()}))
`

// python finds a python3 with the grpc module: the one on PATH, else
// Debian's; the test skips without one.
func python(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import grpc").Run() == nil {
			return path
		}
	}
	t.Skip("no python3 with the grpc module (apt-get install python3-grpcio)")
	return ""
}

// TestPythonClient: a client of its own (Python's grpc) gets the answers
// Go's does: the function's output, Porch's words for a failure,
// NOT_FOUND, and SERVING from the health service.
func TestPythonClient(t *testing.T) {
	t.Parallel()
	py := python(t)
	good := "../../pkg/pkgcontext/testdata/create/resourcelist.yaml"
	bad := "../../pkg/pkgcontext/testdata/config-data-not-string/resourcelist.yaml"
	c := start(t, Options{Runtime: render.Runtimes{ownFunctions}, Env: testEnv})
	script := filepath.Join(t.TempDir(), "client.py")
	if err := os.WriteFile(script, []byte(pythonClient), 0o644); err != nil {
		t.Fatal(err)
	}
	image := "ghcr.io/kptkit/set-package-context:v1"
	out, err := exec.Command(py, script, c.addr, image+"="+good, image+"="+bad, "example.com/other:v1="+good, "health").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var got []map[string]any
	for line := range strings.Lines(string(out)) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		got = append(got, m)
	}
	goodOut, _ := processed(pkgcontext.Function, readFile(t, good))
	failed := c.call(t.Context(), image, readFile(t, bad))
	want := []map[string]any{
		{"resource_list": goodOut, "log": ""},
		{"code": "INTERNAL", "message": failed.Message},
		{"code": "NOT_FOUND", "message": `function "example.com/other:v1" not found`},
		{"health": float64(1)}, // SERVING
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the Python client's answers (-want +got):\n%s", d)
	}
}
