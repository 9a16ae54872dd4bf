package result

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestErrorsAndMessages: the errors of a list, in its order, and their
// messages, for each caller to join its own way.
func TestErrorsAndMessages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		in       List
		errors   List
		messages []string
	}{
		{name: "none", in: nil, errors: nil, messages: []string{}},
		{name: "no error", in: List{Infof("a"), Warningf("b")}, errors: nil, messages: []string{}},
		{
			name:     "errors only, in the list's order (not sorted)",
			in:       List{Errorf("z"), Infof("a"), Errorf("b").WithField("spec"), Warningf("c"), {Message: "no severity"}},
			errors:   List{Errorf("z"), Errorf("b").WithField("spec")},
			messages: []string{"z", "b"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			errs := tc.in.Errors()
			if d := cmp.Diff(tc.errors, errs); d != "" {
				t.Errorf("Errors (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.messages, errs.Messages()); d != "" {
				t.Errorf("Messages (-want +got):\n%s", d)
			}
		})
	}
	if d := cmp.Diff([]string{"a", "", "c"}, List{Infof("a"), {}, Errorf("c")}.Messages()); d != "" {
		t.Errorf("Messages of every result (-want +got):\n%s", d)
	}
}
