package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// object is one manifest, as YAML decodes it.
type object = map[string]any

// provider is one of eggo's three providers as clusterctl installs it.
type provider struct {
	typ       string // infrastructure, bootstrap, control-plane (clusterctl's)
	flag      string // eggo-capi --provider=
	rbacDir   string // config/rbac/<rbacDir>/role.yaml
	group     string // its API group
	namespace string // the components' one Namespace
	gitops    bool   // carries the GitOps controller
}

var providers = []provider{
	{typ: "infrastructure", flag: "infrastructure", rbacDir: "infrastructure", group: "infrastructure.eggo.io", namespace: "eggo-infrastructure-system"},
	{typ: "bootstrap", flag: "bootstrap", rbacDir: "bootstrap", group: "bootstrap.eggo.io", namespace: "eggo-bootstrap-system"},
	{typ: "control-plane", flag: "control-plane", rbacDir: "controlplane", group: "controlplane.eggo.io", namespace: "eggo-system", gitops: true},
}

// label is clusterctl's provider label and repository directory.
func (p provider) label() string { return p.typ + "-eggo" }

func (p provider) componentsFile() string { return p.typ + "-components.yaml" }

// name is the provider's ServiceAccount, roles and Deployment.
func (p provider) name() string { return "eggo-capi-" + p.rbacDir }

// imageVar is what every image of the components is: clusterctl
// replaces it (with the default when EGGO_IMAGE is not set).
func imageVar(image string) string { return "${EGGO_IMAGE:=" + image + "}" }

// components are the provider's objects, in the order clusterctl applies
// them best: the Namespace, the CRDs, then the rest.
func (p provider) components(root, image string) ([]object, error) {
	var objs []object
	if p.gitops {
		gitops, err := gitopsController(root, image)
		if err != nil {
			return nil, err
		}
		objs = append(objs, gitops...)
	} else {
		objs = append(objs, object{"apiVersion": "v1", "kind": "Namespace", "metadata": object{"name": p.namespace}})
	}
	crds, err := filepath.Glob(filepath.Join(root, "config", "crd", "bases", p.group+"_*.yaml"))
	if err != nil || len(crds) == 0 {
		return nil, fmt.Errorf("no CRD of %s in %s/config/crd/bases", p.group, root)
	}
	sort.Strings(crds)
	var plurals []string
	for _, f := range crds {
		crd, err := readObjects(f)
		if err != nil {
			return nil, err
		}
		objs = append(objs, crd...)
		plurals = append(plurals, strings.TrimPrefix(strings.TrimSuffix(filepath.Base(f), ".yaml"), p.group+"_"))
	}
	role, err := readObjects(filepath.Join(root, "config", "rbac", p.rbacDir, "role.yaml"))
	if err != nil {
		return nil, err
	}
	objs = append(objs, role...)
	objs = append(objs, p.serviceAccount(), p.binding(), p.aggregated(plurals), p.deployment(image))
	return objs, nil
}

func (p provider) serviceAccount() object {
	return object{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": object{"name": p.name(), "namespace": p.namespace}}
}

func (p provider) binding() object {
	return object{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": object{"name": p.name()},
		"roleRef":  object{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": p.name()},
		"subjects": []any{object{"kind": "ServiceAccount", "name": p.name(), "namespace": p.namespace}}}
}

// aggregated lets Cluster API's core manager read and write the
// provider's kinds (its ClusterRole aggregates every role so labelled):
// core sets owners, labels and finalizers on infrastructure, bootstrap and
// control-plane objects.
func (p provider) aggregated(plurals []string) object {
	var resources []any
	for _, r := range plurals {
		resources = append(resources, r, r+"/status")
	}
	return object{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
		"metadata": object{"name": p.name() + "-core", "labels": object{"cluster.x-k8s.io/aggregate-to-manager": "true"}},
		"rules": []any{object{"apiGroups": []any{p.group}, "resources": resources,
			"verbs": []any{"get", "list", "watch", "create", "update", "patch", "delete"}}}}
}

// deployment runs eggo-capi for the provider as eggo's GitOps controller
// runs: one replica at a time (leader election), non-root, read-only
// root, the image imported on the nodes.
func (p provider) deployment(image string) object {
	labels := object{"app.kubernetes.io/name": p.name()}
	probe := func(path string, delay int) object {
		return object{"httpGet": object{"path": path, "port": "probes"}, "initialDelaySeconds": delay, "periodSeconds": 10}
	}
	container := object{
		"name": "manager", "image": imageVar(image), "imagePullPolicy": "IfNotPresent",
		"command":       []any{"/usr/local/bin/eggo-capi"},
		"args":          []any{"--provider=" + p.flag, "--leader-elect", "--metrics-bind-address=0", "--health-probe-bind-address=:8081"},
		"ports":         []any{object{"name": "probes", "containerPort": 8081}},
		"livenessProbe": probe("/healthz", 15), "readinessProbe": probe("/readyz", 5),
		"securityContext": object{"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
			"capabilities": object{"drop": []any{"ALL"}}},
		"resources": object{"requests": object{"cpu": "20m", "memory": "64Mi"}, "limits": object{"memory": "256Mi"}},
	}
	return object{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": object{"name": p.name(), "namespace": p.namespace, "labels": labels},
		"spec": object{"replicas": 1, "selector": object{"matchLabels": labels},
			"template": object{"metadata": object{"labels": labels}, "spec": object{
				"serviceAccountName": p.name(),
				"securityContext": object{"runAsNonRoot": true, "runAsUser": 65532, "runAsGroup": 65532,
					"seccompProfile": object{"type": "RuntimeDefault"}},
				"containers":                    []any{container},
				"terminationGracePeriodSeconds": 10,
			}}}}
}

// readObjects reads every document of a YAML file.
func readObjects(file string) ([]object, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []object
	for _, doc := range bytes.Split(data, []byte("\n---")) {
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		var o object
		if err := yaml.Unmarshal(doc, &o); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		if o != nil {
			out = append(out, o)
		}
	}
	return out, nil
}

// stripComments drops whole-line comments and a leading document marker.
func stripComments(doc []byte) []byte {
	var b bytes.Buffer
	for _, l := range bytes.Split(doc, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] == '#' || string(t) == "---" {
			continue
		}
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// marshalAll joins the objects as one YAML stream.
func marshalAll(objs []object) ([]byte, error) {
	var b bytes.Buffer
	for _, o := range objs {
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.Bytes(), nil
}
