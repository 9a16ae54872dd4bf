// Package fleetio is where a fleet meets the disk: its inputs read from
// files and folders (variants, cluster objects, upstream folders), and its
// output folder as the fleet's Store — written package by package, or, in
// a dry run, only compared.
package fleetio

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
)

// ReadInput reads the variants and the cluster's objects ("" for none).
func ReadInput(variants, cluster string) (fleet.Input, error) {
	var in fleet.Input
	var err error
	if in.Variants, in.VariantFiles, err = ReadObjects(variants); err != nil {
		return in, err
	}
	if cluster != "" {
		if in.Cluster, in.ClusterFiles, err = ReadTexts(cluster); err != nil {
			return in, err
		}
	}
	return in, nil
}

// ReadObjects reads every document of a YAML file, or of the YAML files
// below a folder (as kpt reads a package's: .krmignore honoured), with the
// file each came from. A key written twice in a mapping is an error.
func ReadObjects(root string) ([]*yaml.RNode, []string, error) {
	var nodes []*yaml.RNode
	where, err := readEach(root, func(data []byte) (int, error) {
		read, err := kptpkg.ReadDocuments(&kio.ByteReader{OmitReaderAnnotations: true}, data)
		nodes = append(nodes, read...)
		return len(read), err
	})
	return nodes, where, err
}

// ReadTexts reads the documents as ReadObjects does, each as its text
// (kptpkg.ReadTexts): a fleet's cluster objects, kept as bytes.
func ReadTexts(root string) ([]string, []string, error) {
	var texts []string
	where, err := readEach(root, func(data []byte) (int, error) {
		read, err := kptpkg.ReadTexts(data)
		texts = append(texts, read...)
		return len(read), err
	})
	return texts, where, err
}

// readEach reads a YAML file, or the YAML files below a folder, in order,
// each with read, which says how many documents it found; it returns the
// file of each document.
func readEach(root string, read func([]byte) (int, error)) ([]string, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	files := kptpkg.Files{}
	if info.IsDir() {
		if files, err = pkgfs.Read(root); err != nil {
			return nil, err
		}
	} else {
		b, err := readFile(root, krmfn.DefaultMaxInput)
		if err != nil {
			return nil, err
		}
		files[filepath.Base(root)] = b
	}
	var where []string
	for _, p := range files.ResourcePaths("", true) {
		name := root
		if info.IsDir() {
			name = filepath.Join(root, p)
		}
		n, err := read(files[p])
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", name, err)
		}
		for range n {
			where = append(where, name)
		}
	}
	return where, nil
}

// readFile reads a file given as input, at most limit bytes of it
// (krmfn.ReadAtMost: refused once limit+1 bytes are read).
func readFile(name string, limit krmfn.Size) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := krmfn.ReadAtMost(f, limit, "variants render")
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", name, err)
	}
	return b, nil
}

// ReadUpstreams reads a folder of upstream packages; a folder that is one
// package holds it under its base name.
func ReadUpstreams(root string) (kptpkg.Files, error) {
	files, err := pkgfs.Read(root)
	if err != nil {
		return nil, err
	}
	if _, ok := files[kptfile.FileName]; !ok {
		if len(files.Packages()) == 0 {
			return nil, fmt.Errorf("%s holds no package (no Kptfile)", root)
		}
		return files, nil
	}
	name := filepath.Base(filepath.Clean(root))
	named := kptpkg.Files{}
	for p, b := range files {
		named[name+"/"+p] = b
	}
	return named, nil
}
