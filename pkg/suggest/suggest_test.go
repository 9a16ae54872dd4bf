package suggest

import "testing"

func TestClosest(t *testing.T) {
	t.Parallel()
	fields := []string{"apiVersion", "kind", "metadata", "spec", "data"}
	tests := []struct {
		name, word, want string
	}{
		{"transposition", "metadta", "metadata"},
		{"missing letter", "metdata", "metadata"},
		{"case", "Kind", "kind"},
		{"api version", "apiversion", "apiVersion"},
		{"too far", "labels", ""},
		{"exact is no typo", "spec", ""},
		{"short word one edit", "dat", "data"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Closest(tc.word, fields); got != tc.want {
				t.Errorf("Closest(%q) = %q, want %q", tc.word, got, tc.want)
			}
		})
	}
}

func TestHint(t *testing.T) {
	t.Parallel()
	if got, want := Hint("metadta", []string{"metadata"}), ` (did you mean "metadata"?)`; got != want {
		t.Errorf("Hint = %q, want %q", got, want)
	}
	if got := Hint("zzz", []string{"metadata"}); got != "" {
		t.Errorf("Hint = %q, want empty", got)
	}
}
