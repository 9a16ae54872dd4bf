package scan

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// slowResolve is ResolveTag without its shortcut: what yaml.v3 reads.
func slowResolve(v string) string {
	var n yaml.Node
	switch err := yaml.Unmarshal([]byte(v), &n); {
	case err != nil || len(n.Content) != 1:
		return ""
	case n.Content[0].Kind != yaml.ScalarNode:
		return yaml.NodeTagString
	}
	return n.Content[0].Tag
}

// writtenPlain reports whether yaml.v3's encoder writes the string s plain.
func writtenPlain(s string) (plain bool) {
	defer func() {
		if recover() != nil {
			plain = false
		}
	}()
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	if enc.Encode(&yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s}) != nil || enc.Close() != nil {
		return false
	}
	return strings.TrimSuffix(b.String(), "\n") == s
}

// wholePlain reports whether the scan reads s as a plain scalar, whole.
func wholePlain(s string) bool {
	if s == "" {
		return false
	}
	if !plainText([]byte(s)) || strings.ContainsAny(s, "\t\r\n") {
		return false
	}
	tok, ok := readScalar([]byte(s), 0, false)
	return ok && tok.quote() == 0 && !tok.key() && tok.end == len(s) && tok.next == len(s)
}

// checkShortcuts holds the shortcuts to the full checks they spare, for
// the strings yaml.v3 writes plain (it quotes the others anyway).
func checkShortcuts(t *testing.T, s string) {
	t.Helper()
	if decimal(s) {
		if tag := slowResolve(s); tag != yaml.NodeTagInt {
			t.Errorf("decimal(%q) = true, but yaml.v3 reads it as %s", s, tag)
		}
	}
	// The input holds plain scalars yaml.v3 would quote: ResolveTag reads
	// them as yaml.v3 does (those the scan reads as a whole plain scalar).
	if wholePlain(s) && ResolveTag(s) != "" && ResolveTag(s) != slowResolve(s) {
		t.Errorf("ResolveTag(%q) = %s, but yaml.v3 reads it as %s", s, ResolveTag(s), slowResolve(s))
	}
	if !writtenPlain(s) {
		return
	}
	if got, want := Ambiguous(s), yaml.IsValueNonString(s); got != want {
		t.Errorf("Ambiguous(%q) = %v, yaml 1.1 says %v", s, got, want)
	}
	if s != "" && s[0] >= '0' && s[0] <= '9' && !numberLike(s) {
		if tag := slowResolve(s); tag != yaml.NodeTagString && tag != "" {
			t.Errorf("numberLike(%q) = false, but yaml.v3 reads it as %s", s, tag)
		}
	}
}

func TestShortcuts(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"7037628e229b36a5", "1234567890123456", "0x1F", "0xff", "0o17", "0b101", "-0b11", "1e3", "1.5e-3",
		"2026-01-02T03:04:05Z", "2026-01-02 03:04:05", "2001-12-14t21:59:43.10-05:00", "1_000", "+12", "-.inf", ".NaN", ".5",
		"1.2.3", "v1.2.3", "1.27", "0.1.4", "3d", "12:30", "190:20:30", "1e", "0x", "0b2", "abc", "~", "yes", "No", "1a2b",
		"0", "-0", "7", "-42", "8080", "012", "999999999999999999", "-999999999999999999",
		"0_B0", "0_x1F", "-0_o7", "0__b1"} {
		checkShortcuts(t, s)
	}
}

func FuzzShortcuts(f *testing.F) {
	for _, s := range []string{"7037628e229b36a5", "0x1F", "1e3", "2026-01-02T03:04:05Z", ".inf", "1_0", "0b1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkShortcuts(t, s) })
}

// TestAmbiguousWords: Ambiguous answers as YAML 1.1 for every way of
// casing the words a reader may take for a boolean or null.
func TestAmbiguousWords(t *testing.T) {
	t.Parallel()
	var cased func(prefix, rest string) []string
	cased = func(prefix, rest string) []string {
		if rest == "" {
			return []string{prefix}
		}
		c := rest[:1]
		return append(cased(prefix+strings.ToLower(c), rest[1:]), cased(prefix+strings.ToUpper(c), rest[1:])...)
	}
	n := 0
	for _, w := range []string{"y", "yes", "n", "no", "on", "off", "true", "false", "null"} {
		for _, s := range cased("", w) {
			n++
			if got, want := Ambiguous(s), yaml.IsValueNonString(s); got != want {
				t.Errorf("Ambiguous(%q) = %v, yaml 1.1 says %v", s, got, want)
			}
		}
	}
	if n != 92 {
		t.Errorf("%d words, want 92", n)
	}
}
