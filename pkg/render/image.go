package render

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/kptkit/kptkit/pkg/krmfn"
)

// ImagePrefix is where kptkit's own function images live:
// ghcr.io/kptkit/<function>.
const ImagePrefix = "ghcr.io/kptkit"

// ImageRef is a container image reference in its parts:
// <Repository>[:<Tag>][@<Digest>].
type ImageRef struct {
	Repository, Tag, Digest string
}

// ParseImage splits an image reference.
func ParseImage(image string) ImageRef {
	var ref ImageRef
	if i := strings.Index(image, "@"); i >= 0 {
		image, ref.Digest = image[:i], image[i+1:]
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image, ref.Tag = image[:i], image[i+1:]
	}
	ref.Repository = image
	return ref
}

// Version says whether a pipeline entry asks for the given version of its
// image: its Kptfile `tag:` is that version or a semver constraint it
// satisfies, or else its image's tag is the version or its vX.Y alias.
// When it does not, the reason names what was asked and what is at hand.
func (f *Function) Version(v *semver.Version) (bool, string) {
	ref := ParseImage(f.Image)
	have := "v" + v.String()
	alias := fmt.Sprintf("v%d.%d", v.Major(), v.Minor())
	switch {
	case ref.Digest != "":
		return false, fmt.Sprintf("%s is pinned to a digest; the built-in is %s", f.Image, have)
	case f.Tag != "":
		if want, err := semver.NewVersion(f.Tag); err == nil {
			if want.Equal(v) {
				return true, ""
			}
			return false, fmt.Sprintf("%s tag %s asks for %s; the built-in is %s", ref.Repository, f.Tag, want.Original(), have)
		}
		c, err := semver.NewConstraint(f.Tag)
		if err != nil {
			return false, fmt.Sprintf("%s tag %q is neither a version nor a semver constraint; the built-in is %s", ref.Repository, f.Tag, have)
		}
		if c.Check(v) {
			return true, ""
		}
		return false, fmt.Sprintf("%s tag %q does not allow the built-in %s", ref.Repository, f.Tag, have)
	case ref.Tag == have || ref.Tag == alias:
		return true, ""
	case ref.Tag == "":
		return false, fmt.Sprintf("%s has no tag (latest); the built-in is %s (matches :%s, :%s)", f.Image, have, have, alias)
	}
	return false, fmt.Sprintf("%s asks for %s; the built-in is %s (matches :%s, :%s)", ref.Repository, ref.Tag, have, have, alias)
}

// Functions runs kptkit's own functions in process when a pipeline entry
// names one's image: <prefix>/<function> with any tag or digest, for
// ImagePrefix and each of Prefixes.
type Functions struct {
	Functions []krmfn.Function
	Prefixes  []string
	// Env is what the functions see; zero for Options.Env.
	Env krmfn.Env
}

// Runner implements Runtime.
func (fs Functions) Runner(fn Function) (Runner, error) {
	if fn.Image == "" {
		return nil, &Unhandled{}
	}
	repo := ParseImage(fn.Image).Repository
	for _, prefix := range append([]string{ImagePrefix}, fs.Prefixes...) {
		name, ok := strings.CutPrefix(repo, strings.TrimSuffix(prefix, "/")+"/")
		if !ok {
			continue
		}
		for _, f := range fs.Functions {
			if f.Name == name {
				return InProcess{Function: f, Env: fs.Env}, nil
			}
		}
	}
	return nil, &Unhandled{}
}
