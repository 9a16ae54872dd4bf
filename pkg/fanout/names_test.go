package fanout_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/fanout"
)

func TestName(t *testing.T) {
	t.Parallel()
	long := fanout.Identifier("very-long-packagevariantset-name", "very-long-repo-name", "very-long-package-name")
	tests := []struct {
		id, want, wantErr string
	}{
		{id: "oai-ran-operator-edge-oai-ran-operator", want: "oai-ran-operator-edge-oai-ran-operator"},
		{id: fanout.Identifier("app", "edge-1", "Apps/Frontend_Web"), want: "app-edge-1-apps-frontend-web"},
		{id: "-Set.With.Dots-", want: "set-with-dots"},
		{id: strings.Repeat("a", 63), want: strings.Repeat("a", 63)},
		// The SHA-1 of the whole name; Porch's own example.
		{id: long, want: "very-long-packagevariantset-name-very-long-repo-name-v-967492f1"},
		{id: "--/--", wantErr: `"--/--" has no letter or digit to make a name of`},
	}
	for _, tt := range tests {
		got, err := fanout.Name(tt.id)
		switch {
		case tt.wantErr != "":
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("Name(%q) error = %v, want %q", tt.id, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("Name(%q): %v", tt.id, err)
		case got != tt.want:
			t.Errorf("Name(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

func ExampleName() {
	fmt.Println(fanout.Name(fanout.Identifier("upf", "Edge_01", "free5gc/upf")))
	// Output: upf-edge-01-free5gc-upf <nil>
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// FuzzName checks that every name is a DNS-1123 label of at most 63
// characters, the same for the same identifier.
func FuzzName(f *testing.F) {
	for _, s := range []string{"a-b-c", "Apps/Frontend_Web", "---", "ünïcødé-Ж", strings.Repeat("x-", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		name, err := fanout.Name(id)
		if err != nil {
			return
		}
		if len(name) > fanout.MaxNameLength || !dnsLabel.MatchString(name) {
			t.Fatalf("Name(%q) = %q: not a DNS-1123 label of at most 63 characters", id, name)
		}
		if again, _ := fanout.Name(id); again != name {
			t.Fatalf("Name(%q) is %q, then %q", id, name, again)
		}
	})
}
