package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// cert-manager as clusterctl installs it from the local repository
// (DESIGN.md §3): the file its cert-manager.url names,
// OUT/cert-manager/<CertManagerVersion>/cert-manager.yaml, holding eggo-certs
// in cert-manager's clothes: Namespace cert-manager, cert-manager's own
// CRDs (config/certmanager/crds), eggo-certs' generated ClusterRole bound
// to its ServiceAccount, and the Deployment cert-manager running
// /usr/local/bin/eggo-certs from eggo's image.
const (
	// CertManagerVersion is clusterctl v1.14.2's default cert-manager
	// (CertManagerDefaultVersion): eggo-certs stands in for it.
	CertManagerVersion   = "v1.21.1"
	certManagerNamespace = "cert-manager"
	certManagerName      = "cert-manager"
	certsName            = "eggo-certs"
)

// certManagerLabels are what clusterctl labels and annotates an installed
// cert-manager with (cmd/clusterctl/client/cluster/cert_manager.go
// addCerManagerLabel, addCerManagerAnnotations): it finds its
// cert-manager by the core label (PlanUpgrade, EnsureLatestVersion list
// objects so labelled in cert-manager and kube-system) and reads the
// version annotation. clusterctl adds them itself on install; carrying
// them makes an install by kubectl apply look the same.
var (
	certManagerLabels      = object{"clusterctl.cluster.x-k8s.io": "", "clusterctl.cluster.x-k8s.io/core": "cert-manager"}
	certManagerAnnotations = object{"cert-manager.clusterctl.cluster.x-k8s.io/version": CertManagerVersion}
)

// writeCertManager writes the cert-manager component under out. Its
// image is the literal image: clusterctl reads cert-manager.yaml raw, it
// substitutes no ${VARIABLE} in it (client/repository Components().Raw);
// its `images: cert-manager:` setting overrides the image instead.
func writeCertManager(root, out, image string) error {
	objs, err := certManagerComponents(root, image)
	if err != nil {
		return fmt.Errorf("cert-manager: %w", err)
	}
	text, err := marshalAll(objs)
	if err != nil {
		return fmt.Errorf("cert-manager: %w", err)
	}
	dir := filepath.Join(out, "cert-manager", CertManagerVersion)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "cert-manager.yaml"), text, 0o644)
}

// certManagerComponents are the objects, every one labelled and annotated
// as clusterctl labels cert-manager.
func certManagerComponents(root, image string) ([]object, error) {
	objs := []object{{"apiVersion": "v1", "kind": "Namespace", "metadata": object{"name": certManagerNamespace}}}
	crds, err := filepath.Glob(filepath.Join(root, "config", "certmanager", "crds", "*.yaml"))
	if err != nil || len(crds) == 0 {
		return nil, fmt.Errorf("no CRD in %s/config/certmanager/crds (make certmanager-crds)", root)
	}
	sort.Strings(crds)
	for _, f := range crds {
		crd, err := readObjects(f)
		if err != nil {
			return nil, err
		}
		objs = append(objs, crd...)
	}
	role, err := readObjects(filepath.Join(root, "config", "certmanager", "role.yaml"))
	if err != nil {
		return nil, err
	}
	objs = append(objs, role...)
	objs = append(objs,
		object{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": object{"name": certsName, "namespace": certManagerNamespace}},
		object{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": object{"name": certsName},
			"roleRef":  object{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": certsName},
			"subjects": []any{object{"kind": "ServiceAccount", "name": certsName, "namespace": certManagerNamespace}}},
		certManagerDeployment(image))
	for _, o := range objs {
		meta := o["metadata"].(object)
		labels, _ := meta["labels"].(object)
		if labels == nil {
			labels = object{}
		}
		annotations, _ := meta["annotations"].(object)
		if annotations == nil {
			annotations = object{}
		}
		for k, v := range certManagerLabels {
			labels[k] = v
		}
		for k, v := range certManagerAnnotations {
			annotations[k] = v
		}
		meta["labels"], meta["annotations"] = labels, annotations
	}
	return objs, nil
}

// certManagerDeployment runs eggo-certs as the providers' Deployments run
// eggo-capi (provider.deployment): one active replica (leader election,
// its lease in cert-manager), non-root, read-only root, probes.
func certManagerDeployment(image string) object {
	// The pods' labels are not clusterctl's: it counts the objects so
	// labelled against the manifest's to decide an upgrade.
	podLabels := object{"app.kubernetes.io/name": certManagerName, "app.kubernetes.io/component": "controller"}
	probe := func(path string, delay int) object {
		return object{"httpGet": object{"path": path, "port": "probes"}, "initialDelaySeconds": delay, "periodSeconds": 10}
	}
	container := object{
		"name": certManagerName, "image": image, "imagePullPolicy": "IfNotPresent",
		"command": []any{"/usr/local/bin/eggo-certs"},
		"args": []any{"--leader-elect", "--leader-election-namespace=" + certManagerNamespace,
			"--cluster-resource-namespace=" + certManagerNamespace,
			"--metrics-bind-address=0", "--health-probe-bind-address=:8081"},
		"ports":         []any{object{"name": "probes", "containerPort": 8081}},
		"livenessProbe": probe("/healthz", 15), "readinessProbe": probe("/readyz", 5),
		"securityContext": object{"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
			"capabilities": object{"drop": []any{"ALL"}}},
		"resources": object{"requests": object{"cpu": "20m", "memory": "64Mi"}, "limits": object{"memory": "256Mi"}},
	}
	return object{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": object{"name": certManagerName, "namespace": certManagerNamespace,
			"labels": object{"app.kubernetes.io/name": certManagerName}},
		"spec": object{"replicas": 1, "selector": object{"matchLabels": podLabels},
			"template": object{"metadata": object{"labels": podLabels}, "spec": object{
				"serviceAccountName": certsName,
				"securityContext": object{"runAsNonRoot": true, "runAsUser": 65532, "runAsGroup": 65532,
					"seccompProfile": object{"type": "RuntimeDefault"}},
				"containers":                    []any{container},
				"terminationGracePeriodSeconds": 10,
			}}}}
}
