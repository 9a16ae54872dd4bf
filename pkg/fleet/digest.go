package fleet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// inputs digests what a variant's package is rendered from: the tool, the
// upstream revision's content, the variant as given (or as its set made
// it), and the cluster objects its injectors name.
func (r *runner) inputs(j *job, up Upstream) string {
	h := sha256.New()
	field(h, r.opts.Salt)
	field(h, strconv.FormatBool(r.opts.Render != nil))
	field(h, up.Key)
	field(h, j.key())
	if j.set != nil {
		field(h, j.set.key())
	}
	field(h, j.spec)
	for _, inj := range j.pv.Spec.Injectors {
		for _, o := range r.cluster.byName[keyOf(j.pv.Metadata.Namespace, inj.Name)] {
			field(h, o.MustString())
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func encode(f *yaml.MapNode) string {
	if f == nil {
		return ""
	}
	s, _ := f.Value.String()
	return s
}

// field writes a length-prefixed field, so that fields cannot run into
// each other.
func field(h hash.Hash, s string) {
	fmt.Fprintf(h, "%d:%s\n", len(s), s)
}

// seal is the value of a package's rendered annotation: a digest of the
// inputs and of the package's files as rendered, its Kptfile with the seal's
// own value zeroed. A package whose files or inputs changed since has
// another seal. Checking a seal reads the files, parsing nothing.
func seal(inputs string, files kptpkg.Files) string {
	h := sha256.New()
	field(h, inputs)
	for _, p := range files.Paths() {
		b := files[p]
		if p == kptfile.FileName {
			b = sealPattern.ReplaceAll(b, []byte("${1}"+unsealed))
		}
		field(h, p)
		field(h, string(b))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// unsealed is the placeholder a seal is computed over.
var unsealed = "sha256:" + strings.Repeat("0", 64)

// sealPattern finds a seal in a Kptfile.
var sealPattern = regexp.MustCompile(`(` + regexp.QuoteMeta(v1alpha1.AnnotationRendered) + `: ['"]?)sha256:[0-9a-f]{64}`)

// sealFiles records the seal in the package's root Kptfile: on the line
// after the owner's (which the variant always writes), else through an edit
// of the Kptfile.
func sealFiles(files kptpkg.Files, inputs string) (kptpkg.Files, error) {
	kf := files[kptfile.FileName]
	if m := ownerLine.FindSubmatchIndex(kf); m != nil && !sealPattern.Match(kf) {
		indent := string(kf[m[2]:m[3]])
		line := indent + v1alpha1.AnnotationRendered + ": " + unsealed + "\n"
		sealed := slices.Concat(kf[:m[1]], []byte(line), kf[m[1]:])
		files = files.Clone()
		files[kptfile.FileName] = sealed
	} else {
		var err error
		files, err = editKptfile(files, func(kf *yaml.RNode) error {
			return annotate(kf, v1alpha1.AnnotationRendered, unsealed)
		})
		if err != nil {
			return nil, err
		}
	}
	s := seal(inputs, files)
	files[kptfile.FileName] = sealPattern.ReplaceAll(files[kptfile.FileName], []byte("${1}"+s))
	return files, nil
}

// ownerLine finds the owner annotation's line (written by the variant, a
// plain scalar) and its indentation.
var ownerLine = regexp.MustCompile(`(?m)^( +)` + regexp.QuoteMeta(v1alpha1.AnnotationOwner) + `: [^\n'"]*\n`)
