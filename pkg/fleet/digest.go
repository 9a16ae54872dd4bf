package fleet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"

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
	field(h, encode(j.node.Field("spec")))
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

// seal is the value of a package's rendered annotation: the inputs and
// the package's files as rendered (its Kptfile without the annotation).
// A package whose files or inputs changed since has another seal.
func seal(inputs string, files kptpkg.Files) string {
	h := sha256.New()
	field(h, inputs)
	for _, p := range files.Paths() {
		b := files[p]
		if p == kptfile.FileName {
			b = unsealed(b)
		}
		field(h, p)
		field(h, string(b))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// unsealed is a root Kptfile without its rendered annotation, as written.
func unsealed(kf []byte) []byte {
	n, err := rootKptfile(kf)
	if err != nil {
		return kf
	}
	if err := annotate(n, v1alpha1.AnnotationRendered, ""); err != nil {
		return kf
	}
	b, err := kptpkg.Encode([]*yaml.RNode{n})
	if err != nil {
		return kf
	}
	return b
}

// sealFiles records the seal in the package's root Kptfile.
func sealFiles(files kptpkg.Files, inputs string) (kptpkg.Files, error) {
	s := seal(inputs, files)
	return editKptfile(files, func(kf *yaml.RNode) error {
		return annotate(kf, v1alpha1.AnnotationRendered, s)
	})
}
