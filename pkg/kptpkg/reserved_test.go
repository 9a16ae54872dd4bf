package kptpkg_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// TestCheckReserved: kptkit's own names, in any segment, are refused;
// names that only look like them are not.
func TestCheckReserved(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{
		"edge01/app":                "",
		".kptkit":                   `package ".kptkit": the name ".kptkit" is kptkit's own (its scratch and journal): give it another name`,
		"edge01/.KptKit/x":          `package "edge01/.KptKit/x": the name ".KptKit" is kptkit's own (its scratch and journal): give it another name`,
		"edge01/.kptkit. ":          `package "edge01/.kptkit. ": the name ".kptkit. " is kptkit's own (its scratch and journal): give it another name`,
		"edge01/.app.kptkit-new":    `package "edge01/.app.kptkit-new": the name ".app.kptkit-new" is kptkit's own (its scratch and journal): give it another name`,
		".app.kptkit-old/Kptfile":   `package ".app.kptkit-old/Kptfile": the name ".app.kptkit-old" is kptkit's own (its scratch and journal): give it another name`,
		"kptkit/app":                "",
		".kptkit2":                  "",
		"app.kptkit-new":            "",
		"docs/.notes.kptkit-newest": "",
	} {
		got := ""
		if err := kptpkg.CheckReserved("package", p); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CheckReserved(%q) = %q, want %q", p, got, want)
		}
	}
}
