package kinds

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/providers/shell/shelltest"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// auditTransport is the recording transport every node of the hostile
// cluster is reached through.
const auditTransport = "quoting-audit"

// hostile hands out hostile values (shelltest.Hostile), each under a tag
// naming the field it fills, so a failure says which value escaped.
type hostile struct {
	values map[string]string // tag → value
	fields map[string]string // tag → field
}

func (h *hostile) v(field string) string {
	tag := fmt.Sprintf("H%03d", len(h.values)+100) // fixed width: no tag is a prefix of another
	h.values[tag] = shelltest.Hostile(tag)
	h.fields[tag] = field
	return h.values[tag]
}

// hostileCluster is a cluster whose every string a kind does not parse is
// hostile, validated or not: names, labels, annotations, paths, the
// version, extra_args, an add-on manifest's file and objects, a package
// bundle's file names. Addresses and ranges stay real (the kinds parse
// them; validation keeps them plain).
func hostileCluster(t *testing.T, h *hostile) *resources.Cluster {
	packages := t.TempDir()
	for _, rel := range resources.RequiredBundleFiles() {
		resourcestest.WriteFile(t, filepath.Join(packages, "amd64", filepath.FromSlash(rel)), rel, 0o755)
	}
	for _, comp := range []string{resources.CompAPIServer, resources.CompControllerManager, resources.CompScheduler} {
		rel := resources.ControlPlaneImage(comp)
		resourcestest.WriteFile(t, filepath.Join(packages, "amd64", filepath.FromSlash(rel)), rel, 0o644)
	}
	resourcestest.WriteFile(t, filepath.Join(packages, "amd64", "etc", h.v("bundle file name")), "x", 0o644)
	manifest := filepath.Join(t.TempDir(), h.v("add-on manifest file name")+".yaml")
	resourcestest.WriteFile(t, manifest, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %q\n  namespace: %q\n",
		h.v("add-on manifest object name"), h.v("add-on manifest object namespace")), 0o644)

	conn := resources.Connection{Type: auditTransport}
	node := func(role, address string) resources.Node {
		return resources.Node{Name: h.v(role + " node name"), Source: "main.hcl:1", Address: address, Roles: strings.Split(role, "+"),
			Labels: map[string]string{h.v(role + " label key"): h.v(role + " label value")}, Connection: conn}
	}
	return &resources.Cluster{
		Name: h.v("cluster name"), Source: "main.hcl:1", KubernetesVersion: h.v("kubernetes_version"),
		Packages: packages, ConfigDir: "/" + h.v("config_dir"),
		Labels:      map[string]string{h.v("cluster label key"): h.v("cluster label value")},
		Annotations: map[string]string{h.v("annotation key"): h.v("annotation value")},
		Network:     resources.Network{ServiceCIDR: "10.96.0.0/12", PodCIDR: "10.244.0.0/16", DNSDomain: h.v("dns_domain")},
		ExtraArgs:   map[string]map[string]string{"kubelet": {"node-labels": h.v("extra_args value")}},
		Addons: resources.Addons{CoreDNS: true, CoreDNSReplicas: 1, CoreDNSUpstream: []string{"/etc/resolv.conf"},
			Manifests: []resources.AddonManifest{{Name: strings.TrimSuffix(filepath.Base(manifest), ".yaml"), Path: manifest, Source: "main.hcl:1"}}},
		Nodes: []resources.Node{node("master+etcd", "10.0.0.11"), node("master+etcd", "10.0.0.12"), node("etcd", "10.0.0.13"),
			node("worker", "10.0.0.21"), node("worker", "10.0.0.22")},
	}
}

// stateOnly adds to a recorded object the values only the state holds
// (what eggo created on a host, what it moved aside): the state file is
// as much input as the configuration.
func stateOnly(h *hostile, kind string, a resources.Attrs) resources.Attrs {
	out := make(resources.Attrs, len(a)+2)
	for k, v := range a {
		out[k] = v
	}
	switch kind {
	case "host":
		out["created"] = []any{map[string]any{"path": "/" + h.v("recorded file"), "type": "file"},
			map[string]any{"path": "/" + h.v("recorded directory"), "type": "dir"}}
		out["replaced"] = []any{map[string]any{"path": "/" + h.v("replaced file"), "backup": "/" + h.v("backup"), "sha256": h.v("backup sha256")}}
	case "addon":
		out["objects"] = []any{
			map[string]any{"api_version": "v1", "kind": "ConfigMap", "namespace": h.v("add-on object namespace"), "name": h.v("add-on object name")},
			map[string]any{"api_version": "apps/v1", "kind": "Deployment", "namespace": "kube-system", "name": h.v("add-on workload name")},
		}
	case "service", "etcd_member":
		if kind == "etcd_member" { // other members are reached, and this one removed, by these
			out["client_url"], out["peer_url"] = h.v("recorded etcd client URL"), h.v("recorded etcd peer URL")
		}
		out["created_dirs"] = []any{"/" + h.v(kind+" created dir")}
		out["owned_data"] = []any{"/" + h.v(kind+" owned data")}
	}
	return out
}

// TestEveryRemoteCommandQuotesItsValues runs every kind's Read, Plan,
// Create, Update and Delete for a hostile cluster over a transport that
// records instead of running, then parses every command line, every
// script and every shell file uploaded with a real shell parser: each
// hostile value must be one literal word wherever it reached, whatever
// its field's validation allows (the state can hold anything). A value
// built into a command without shell.Quote fails here, naming its field.
func TestEveryRemoteCommandQuotesItsValues(t *testing.T) {
	// Both implementations: the pod one sends other commands (manifests,
	// image imports, containerd's view of the pods).
	for _, impl := range []string{resources.ImplementationBinary, resources.ImplementationPod} {
		t.Run(impl, func(t *testing.T) { auditQuoting(t, impl) })
	}
}

func auditQuoting(t *testing.T, implementation string) {
	h := &hostile{values: map[string]string{}, fields: map[string]string{}}
	c := hostileCluster(t, h)
	c.Implementation = implementation
	rec := resourcestest.NewRecorder(auditTransport)

	type item struct {
		kind    resources.Kind
		desired resources.Desired
		prior   resources.Object
	}
	var items []item
	recorded := map[string][]resources.Object{}
	for _, k := range All() {
		ds, err := k.Expand(c)
		if err != nil && !offHost[k.Name()] {
			t.Fatalf("%s: Expand: %v", k.Name(), err)
		}
		for _, d := range ds {
			// Every input from another resource (a certificate, a key) is known.
			d.Attrs = resources.Substitute(d.Attrs, func(resources.Ref) any { return "input" }).(resources.Attrs)
			prior := resources.Object{Addr: d.Addr, Kind: d.Kind, Node: d.Node, Attrs: stateOnly(h, d.Kind, d.Attrs)}
			items = append(items, item{k, d, prior})
			recorded[d.Kind] = append(recorded[d.Kind], prior)
		}
	}
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	rc.WorkDir = t.TempDir()
	rc.Recorded = func(kind string) []resources.Object { return recorded[kind] }
	for _, it := range items {
		// Errors are expected (nothing answers as a host would); each
		// operation runs as far as the recorder's empty answers let it.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, _, _ = it.kind.Read(ctx, rc, it.prior)
		create, _ := it.kind.Plan(ctx, rc, nil, it.desired)
		_, _ = it.kind.Create(ctx, rc, it.desired, create)
		update, _ := it.kind.Plan(ctx, rc, &it.prior, it.desired)
		_, _ = it.kind.Update(ctx, rc, it.prior, it.desired, update)
		_, _ = it.kind.Delete(ctx, rc, it.prior)
		cancel()
	}

	found := rec.AuditQuoting(t, h.values, func(u resourcestest.RecordedUpload) bool {
		return strings.HasPrefix(u.Content, "#!/bin/sh") || strings.HasPrefix(u.Content, "#!/bin/bash")
	})
	var missed []string
	for tag, field := range h.fields {
		if found[tag] == 0 && !offShell[field] {
			missed = append(missed, tag+" ("+field+")")
		}
		if found[tag] > 0 && offShell[field] {
			t.Errorf("%s (%s) reaches a shell now: take it off offShell, so the audit requires it", tag, field)
		}
	}
	sort.Strings(missed)
	if len(missed) > 0 {
		t.Errorf("values that never reached a host's shell (the audit lost its coverage, or offShell is out of date): %s", strings.Join(missed, ", "))
	}
	if testing.Verbose() {
		t.Logf("%d commands and %d uploads audited", len(rec.Runs()), len(rec.Uploads()))
	}
}

// offHost are the kinds that work on this machine only (certificates
// refuse a hostile name as a DNS name; they never reach a host's shell).
var offHost = map[string]bool{"cert": true, "kubeconfig": true, "pki": true}

// offShell are the hostile fields no shell reads: they reach only files
// (unit files, quoted by systemd's rules: resources/kube/unit_quote.go;
// certificates; manifests, sent base64) or hooks (resources/hook's audit).
var offShell = map[string]bool{
	"add-on manifest object name": true, "add-on manifest object namespace": true, // the manifest travels base64
	"cluster name": true, "cluster label key": true, "cluster label value": true, // hooks only
	"annotation key": true, "annotation value": true, // hooks only
	"dns_domain":       true,                           // kubelet's and CoreDNS's files
	"extra_args value": true,                           // unit files
	"etcd label key":   true, "etcd label value": true, // Node labels are set on masters and workers only
}
