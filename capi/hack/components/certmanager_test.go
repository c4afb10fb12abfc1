package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	utilyaml "sigs.k8s.io/cluster-api/util/yaml"
)

// TestCertManagerComponent: cert-manager/v1.21.1/cert-manager.yaml is
// what clusterctl's cert-manager client reads (parsed here with its own
// utilyaml.ToUnstructured): one Namespace cert-manager holding every
// namespaced object; cert-manager's four CRDs; eggo-certs' generated role
// bound to its ServiceAccount; the Deployment cert-manager running
// eggo-certs from the literal image (clusterctl substitutes no variable
// in it); and every object labelled and annotated as clusterctl labels
// the cert-manager it installs, the pods not (clusterctl counts the
// labelled objects).
func TestCertManagerComponent(t *testing.T) {
	out := t.TempDir()
	if err := write(filepath.Join("..", ".."), out, "v0.1.0", "eggo.io/eggo:t1"); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(out, "cert-manager", "v1.21.1", "cert-manager.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := utilyaml.ToUnstructured(text)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string][]string{}
	for _, o := range objs {
		kinds[o.GetKind()] = append(kinds[o.GetKind()], o.GetName())
		if o.GetLabels()["clusterctl.cluster.x-k8s.io/core"] != "cert-manager" || o.GetLabels()["clusterctl.cluster.x-k8s.io"] != "" ||
			o.GetAnnotations()["cert-manager.clusterctl.cluster.x-k8s.io/version"] != "v1.21.1" {
			t.Errorf("%s %s: labels %v annotations %v, not clusterctl's cert-manager's", o.GetKind(), o.GetName(), o.GetLabels(), o.GetAnnotations())
		}
		if !clusterScoped[o.GetKind()] && o.GetNamespace() != "cert-manager" {
			t.Errorf("%s %s in namespace %q, want cert-manager", o.GetKind(), o.GetName(), o.GetNamespace())
		}
	}
	want := map[string]string{
		"Namespace":                "cert-manager",
		"CustomResourceDefinition": "certificaterequests.cert-manager.io certificates.cert-manager.io clusterissuers.cert-manager.io issuers.cert-manager.io",
		"ClusterRole":              "eggo-certs", "ClusterRoleBinding": "eggo-certs", "ServiceAccount": "eggo-certs",
		"Deployment": "cert-manager",
	}
	for kind, names := range want {
		if got := strings.Join(kinds[kind], " "); got != names {
			t.Errorf("%s: %q, want %q", kind, got, names)
		}
	}
	if len(kinds) != len(want) {
		t.Errorf("kinds %v", kinds)
	}
	s := string(text)
	for _, w := range []string{"image: eggo.io/eggo:t1\n", "- /usr/local/bin/eggo-certs\n", "- --leader-elect\n",
		"serviceAccountName: eggo-certs\n", "readOnlyRootFilesystem: true\n", "runAsNonRoot: true\n", "path: /readyz\n"} {
		if !strings.Contains(s, w) {
			t.Errorf("cert-manager.yaml lacks %q", w)
		}
	}
	if strings.Contains(s, "${") {
		t.Error("cert-manager.yaml holds a ${VARIABLE}: clusterctl would apply it as is")
	}
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		podLabels := o.Object["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)["labels"].(map[string]any)
		if _, ok := podLabels["clusterctl.cluster.x-k8s.io/core"]; ok {
			t.Errorf("the pods carry clusterctl's label: %v", podLabels)
		}
	}
}
