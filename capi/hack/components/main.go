// Command components writes eggo's three Cluster API providers as a
// clusterctl local repository (DESIGN.md §3):
//
//	go run ./hack/components -out DIR -version v0.1.0 -image eggo.io/eggo:TAG
//
// DIR/{infrastructure-eggo,bootstrap-eggo,control-plane-eggo}/VERSION/
// each get metadata.yaml and <type>-components.yaml (one Namespace, the
// provider's CRDs, its generated ClusterRole and binding, the ClusterRole
// that lets Cluster API's core manage its kinds, its ServiceAccount and
// its Deployment, container "manager", running eggo-capi from eggo's
// image); the infrastructure's also gets cluster-template.yaml. The
// control plane's carries the GitOps controller (controller/config), whose
// Jobs it runs: clusterctl installs both, and moves EggoClusters with it.
// Every image is ${EGGO_IMAGE:=IMAGE}, so `clusterctl init` can name
// another. DIR/cert-manager/v1.21.1/cert-manager.yaml is eggo-certs, the
// cert-manager clusterctl installs (certmanager.go; its image is IMAGE).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", "", "the local repository's directory")
	version := flag.String("version", "v0.1.0", "the providers' version (a semver directory)")
	image := flag.String("image", "", "eggo's image (eggo.io/eggo:TAG), the default of ${EGGO_IMAGE}")
	root := flag.String("root", ".", "the capi module's directory")
	flag.Parse()
	if *out == "" || *image == "" {
		fmt.Fprintln(os.Stderr, "usage: components -out DIR -image eggo.io/eggo:TAG [-version v0.1.0] [-root capi/]")
		os.Exit(2)
	}
	if err := write(*root, *out, *version, *image); err != nil {
		fmt.Fprintln(os.Stderr, "components:", err)
		os.Exit(1)
	}
}

// write writes every provider's files under out.
func write(root, out, version, image string) error {
	for _, p := range providers {
		dir := filepath.Join(out, p.label(), version)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		objs, err := p.components(root, image)
		if err != nil {
			return fmt.Errorf("%s: %w", p.label(), err)
		}
		text, err := marshalAll(objs)
		if err != nil {
			return fmt.Errorf("%s: %w", p.label(), err)
		}
		if err := os.WriteFile(filepath.Join(dir, p.componentsFile()), text, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "metadata.yaml"), []byte(metadata), 0o644); err != nil {
			return err
		}
		if p.typ == "infrastructure" {
			if err := os.WriteFile(filepath.Join(dir, "cluster-template.yaml"), []byte(clusterTemplate), 0o644); err != nil {
				return err
			}
		}
	}
	return writeCertManager(root, out, image)
}

// metadata maps the providers' release series to Cluster API's contract
// (clusterctl checks it against the CRDs' contract label).
const metadata = `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 0
  minor: 1
  contract: v1beta2
`
