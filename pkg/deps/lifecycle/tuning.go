package lifecycle

import (
	"fmt"
	"slices"
	"strings"
)

// Entry is one requirement-tuning entry of Hub's
// lifecycle.requires.optional: `cap` (optional for every package), `cap:pkg`
// (optional for pkg), `param.path:pkg` (deploy pkg only when the parameter
// is truthy), or one of the erasers `:`, `req:` and `:pkg`.
type Entry struct {
	// Req is the capability, or the parameter path when Param is set.
	Req string
	// Pkg is the package the entry is about; "" means every package.
	Pkg string
	// Param marks a parameter entry: Req holds a ".".
	Param bool
	// Erase is set for an eraser: EraseAll, EraseReq or ErasePkg.
	Erase Eraser
}

// Eraser is what an eraser entry removes from the entries before it.
type Eraser int

// Erasers.
const (
	Keep     Eraser = iota // not an eraser
	EraseAll               // ":" erases every earlier entry
	EraseReq               // "req:" erases the earlier entries for req
	ErasePkg               // ":pkg" erases the earlier entries for pkg
)

// ParseEntry reads one entry.
func ParseEntry(s string) (Entry, error) {
	if s == "" {
		return Entry{}, fmt.Errorf("an empty entry means nothing: use `cap`, `cap:package`, `param.path:package`, `:`, `cap:` or `:package`")
	}
	if strings.ContainsAny(s, " \t\n") {
		return Entry{}, fmt.Errorf("entry %q holds white space", s)
	}
	if s == ":" {
		return Entry{Erase: EraseAll}, nil
	}
	req, pkg, found := strings.Cut(s, ":")
	if strings.Contains(pkg, ":") {
		return Entry{}, fmt.Errorf("entry %q holds more than one \":\": use `requirement:package`", s)
	}
	e := Entry{Req: req, Pkg: pkg, Param: strings.Contains(req, ".")}
	switch {
	case found && req == "":
		e.Erase = ErasePkg
	case found && pkg == "":
		e.Erase = EraseReq
	}
	if e.Param && (strings.HasPrefix(req, ".") || strings.HasSuffix(req, ".") || strings.Contains(req, "..")) {
		return Entry{}, fmt.Errorf("entry %q: parameter path %q has an empty part", s, req)
	}
	return e, nil
}

// String writes the entry back as Hub spells it.
func (e Entry) String() string {
	switch e.Erase {
	case EraseAll:
		return ":"
	case EraseReq:
		return e.Req + ":"
	case ErasePkg:
		return ":" + e.Pkg
	}
	if e.Pkg == "" {
		return e.Req
	}
	return e.Req + ":" + e.Pkg
}

// Tuning is the requirement tuning in force after every layer was read.
type Tuning []Entry

// Merge reads the layers' entries in order, base stack first: an eraser
// removes the matching earlier entries (of its own layer too), anything
// else is appended once. As in Hub, an entry for one package (`req:pkg`)
// supersedes an earlier plain `req`, and a plain `req` supersedes the
// earlier `req:pkg` entries. Unlike Hub's merge, `:pkg` does erase the
// earlier entries for pkg (Hub compares "pkg" with the stored ":pkg" and
// never matches).
func Merge(layers ...[]Entry) Tuning {
	var t Tuning
	for _, layer := range layers {
		for _, e := range layer {
			switch e.Erase {
			case EraseAll:
				t = nil
			case EraseReq:
				t = slices.DeleteFunc(t, func(o Entry) bool { return o.Req == e.Req })
			case ErasePkg:
				t = slices.DeleteFunc(t, func(o Entry) bool { return o.Pkg == e.Pkg })
			default:
				t = slices.DeleteFunc(t, func(o Entry) bool { return o.Req == e.Req && (o.Pkg == "") != (e.Pkg == "") })
				if !slices.Contains(t, e) {
					t = append(t, e)
				}
			}
		}
	}
	return t
}

// CapabilityOptional returns the first entry that makes a missing
// capability optional for pkg (`cap` or `cap:pkg`), and whether there is one.
func (t Tuning) CapabilityOptional(capability, pkg string) (Entry, bool) {
	i := slices.IndexFunc(t, func(e Entry) bool {
		return !e.Param && e.Req == capability && (e.Pkg == "" || e.Pkg == pkg)
	})
	if i < 0 {
		return Entry{}, false
	}
	return t[i], true
}

// Conditions returns the parameter paths pkg is deployed under: the
// entries `param.path:pkg` and `param.path`, in order.
func (t Tuning) Conditions(pkg string) []string {
	var out []string
	for _, e := range t {
		if e.Param && (e.Pkg == "" || e.Pkg == pkg) {
			out = append(out, e.Req)
		}
	}
	return out
}

// Tunes reports whether an entry names pkg, or applies to every package and
// is about one of the capabilities it requires.
func (t Tuning) Tunes(pkg string, requires []string) bool {
	return slices.ContainsFunc(t, func(e Entry) bool {
		switch {
		case e.Pkg == pkg:
			return true
		case e.Pkg != "":
			return false
		}
		return e.Param || slices.Contains(requires, e.Req)
	})
}

// Strings writes the tuning back as Hub entries.
func (t Tuning) Strings() []string {
	out := make([]string, len(t))
	for i, e := range t {
		out[i] = e.String()
	}
	return out
}
