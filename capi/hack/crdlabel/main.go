// Command crdlabel adds the Cluster API contract label to the CRDs
// controller-gen wrote (controller-gen cannot add labels):
//
//	go run ./hack/crdlabel DIR...
//
// Every *.yaml in each DIR gets metadata.labels
// cluster.x-k8s.io/v1beta2: v1alpha1 — core reads exactly that key to
// know which of our versions speaks its contract v1beta2. The text is
// edited in place (controller-gen's layout kept) and read back as a CRD to
// prove the label is there.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

const (
	labelKey   = "cluster.x-k8s.io/v1beta2"
	labelValue = "v1alpha1"
	// controller-gen writes metadata as annotations, then name.
	nameLine = "\n  name: "
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: crdlabel DIR...")
		os.Exit(2)
	}
	for _, dir := range os.Args[1:] {
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err == nil && len(files) == 0 {
			err = fmt.Errorf("no CRD in %s", dir)
		}
		for _, f := range files {
			if err == nil {
				err = label(f)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "crdlabel:", err)
			os.Exit(1)
		}
	}
}

// label adds the label to the CRD in file, unless it is there already.
func label(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	text := string(data)
	meta := strings.Index(text, "\nmetadata:\n")
	if meta < 0 {
		return fmt.Errorf("%s: no metadata", file)
	}
	if !strings.Contains(text[meta:], "\n  labels:\n") {
		i := strings.Index(text[meta:], nameLine)
		if i < 0 {
			return fmt.Errorf("%s: no metadata.name", file)
		}
		at := meta + i + 1
		text = text[:at] + "  labels:\n    " + labelKey + ": " + labelValue + "\n" + text[at:]
	}
	var crd apiextv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict([]byte(text), &crd); err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	if crd.Kind != "CustomResourceDefinition" || crd.Labels[labelKey] != labelValue {
		return fmt.Errorf("%s: kind %q, labels %v: not a labelled CRD", file, crd.Kind, crd.Labels)
	}
	return os.WriteFile(file, []byte(text), 0o644)
}
