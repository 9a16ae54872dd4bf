package fleet

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// inputs digests what a variant's package is rendered from: the tool, the
// upstream revision's content, the variant as given (or as its set made
// it) and understood, and the cluster objects its injectors name.
func (r *runner) inputs(j *job, up Upstream) string {
	d := kptpkg.NewDigest(kptpkg.LineFraming)
	d.Field(r.opts.Salt)
	d.Field(strconv.FormatBool(r.opts.Render != nil))
	d.Field(up.Key)
	d.Field(j.key())
	if j.set != nil {
		d.Field(j.set.key())
	}
	d.Field(j.spec)
	for _, inj := range j.pv.Spec.Injectors {
		for _, text := range r.cluster.byName[keyOf(j.pv.Metadata.Namespace, inj.Name)] {
			d.Field(text)
		}
	}
	return d.Hex()
}

// understood writes a variant's spec as kptkit understands it, for the
// inputs digest: decoded (fields Porch ignores left out), its revision as
// a number (`v1` and `1` name one revision), its fields in one order and
// style, maps by key, its pipeline's functions without comments or
// quoting. A spec written otherwise that means the same renders nothing
// again, and --check finds no change.
func understood(spec porch.PackageVariantSpec, rev int) string {
	if up := spec.Upstream; up != nil && rev > 0 {
		c := *up
		c.Revision = decode.AnyScalar(strconv.Itoa(rev))
		spec.Upstream = &c
	}
	if pl := spec.Pipeline; pl != nil {
		spec.Pipeline = &kptapi.Pipeline{Mutators: plain(pl.Mutators), Validators: plain(pl.Validators)}
	}
	b, err := yaml.Marshal(spec)
	if err != nil {
		return err.Error() // cannot happen: the spec was decoded from YAML
	}
	return string(b)
}

// plain returns function entries as values: without comments, quoting or
// styles. An entry that does not decode (too many aliases) stays as it is.
func plain(fns []*yaml.Node) []*yaml.Node {
	out := make([]*yaml.Node, len(fns))
	for i, fn := range fns {
		out[i] = fn
		var v any
		if fn.Decode(&v) != nil {
			continue
		}
		var n yaml.Node
		if n.Encode(v) == nil {
			out[i] = &n
		}
	}
	return out
}

// seal is the value of a package's rendered annotation: a digest of the
// package's files as written, its Kptfile with the seal's own value zeroed
// (the inputs annotation is among what it covers), and of whether the
// package is pristine (the variant's making of its upstream alone) or holds
// edits by hand merged in. A package whose files changed since has another
// seal. Checking a seal reads the files, parsing nothing.
func seal(files kptpkg.Files, pristine bool) string {
	d := kptpkg.NewDigest(kptpkg.LineFraming)
	d.Field(strconv.FormatBool(pristine))
	if kf, ok := files[kptapi.FileName]; ok {
		files = files.Clone()
		files[kptapi.FileName] = sealPattern.ReplaceAll(kf, []byte("${1}"+unsealed))
	}
	d.Files(files, files.Paths())
	return "sha256:" + d.Hex()
}

// sealed says whether a package is pristine: as kptkit made it of its
// upstream, with no edits by hand then or since.
func sealed(own ownership, files kptpkg.Files) bool {
	return own.rendered != "" && own.rendered == seal(files, true)
}

// unsealed is the placeholder a seal is computed over.
var unsealed = "sha256:" + strings.Repeat("0", 64)

// sealPattern finds a seal in a Kptfile.
var sealPattern = regexp.MustCompile(`(` + regexp.QuoteMeta(v1alpha1.AnnotationRendered) + `: ['"]?)sha256:[0-9a-f]{64}`)

// sealFiles records the inputs and the seal in the package's root Kptfile:
// on the lines after the owner's (which the variant always writes), else
// through an edit of the Kptfile.
func sealFiles(files kptpkg.Files, inputs string, pristine bool) (kptpkg.Files, error) {
	kf := files[kptapi.FileName]
	if m := ownerLine.FindSubmatchIndex(kf); m != nil && !sealPattern.Match(kf) && !inputsLine.Match(kf) {
		indent := string(kf[m[2]:m[3]])
		lines := indent + v1alpha1.AnnotationInputs + ": sha256:" + inputs + "\n" +
			indent + v1alpha1.AnnotationRendered + ": " + unsealed + "\n"
		sealed := slices.Concat(kf[:m[1]], []byte(lines), kf[m[1]:])
		files = files.Clone()
		files[kptapi.FileName] = sealed
	} else {
		var err error
		files, err = kptfile.Edit(files, func(kf *yaml.RNode) error {
			if err := annotate(kf, v1alpha1.AnnotationInputs, "sha256:"+inputs); err != nil {
				return err
			}
			return annotate(kf, v1alpha1.AnnotationRendered, unsealed)
		})
		if err != nil {
			return nil, err
		}
	}
	s := seal(files, pristine)
	files[kptapi.FileName] = sealPattern.ReplaceAll(files[kptapi.FileName], []byte("${1}"+s))
	return files, nil
}

// inputsLine finds the inputs annotation's line.
var inputsLine = regexp.MustCompile(`(?m)^ +` + regexp.QuoteMeta(v1alpha1.AnnotationInputs) + `: `)

// ownerLine finds the owner annotation's line (written by the variant, a
// plain scalar) and its indentation.
var ownerLine = regexp.MustCompile(`(?m)^( +)` + regexp.QuoteMeta(v1alpha1.AnnotationOwner) + `: [^\n'"]*\n`)
