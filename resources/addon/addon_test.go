package addon

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/eggo-project/eggo/providers/local"
	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kube"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

func addonCluster(t *testing.T) *resources.Cluster {
	return &resources.Cluster{
		Name: "demo", Source: "main.hcl:1", ConfigDir: "/etc/kubernetes",
		Network: resources.Network{ServiceCIDR: "10.96.0.0/12", PodCIDR: "10.244.0.0/16", DNSDomain: "corp.local"},
		Addons:  resources.Addons{CoreDNS: true, CoreDNSReplicas: 2, CoreDNSUpstream: []string{"/etc/resolv.conf"}},
		Nodes: []resources.Node{
			{Name: "m0", Source: "main.hcl:10", Address: "127.0.0.1", Roles: []string{"master", "etcd"}, Connection: resources.Connection{Type: "local"}},
			{Name: "w0", Source: "main.hcl:20", Address: "127.0.0.2", Roles: []string{"worker"}},
			{Name: "w1", Source: "main.hcl:20", Address: "127.0.0.3", Roles: []string{"worker"}},
		},
	}
}

// The Service kube-dns must sit where kubelet sends pods' queries.
func TestCoreDNSServiceIsKubeletsClusterDNS(t *testing.T) {
	c := addonCluster(t)
	ip, err := resources.ClusterDNSIP(c.Network.ServiceCIDR)
	if err != nil || ip != "10.96.0.10" {
		t.Fatalf("ClusterDNSIP = %q, %v; want 10.96.0.10", ip, err)
	}
	var config string
	for _, f := range kube.Kubelet(c, c.Nodes[1]).Files {
		if strings.HasSuffix(f.Path, "/config.yaml") {
			config, _ = f.Content.(string)
		}
	}
	if !strings.Contains(config, "clusterDNS:\n- "+ip+"\n") || !strings.Contains(config, "clusterDomain: corp.local\n") {
		t.Errorf("kubelet's config does not point at %s in corp.local:\n%s", ip, config)
	}
	image := c.Minor().CoreDNS
	m, err := renderCoreDNS(coreDNSSettings{Image: image, Replicas: 2, DNSIP: ip, DNSDomain: "corp.local", Upstream: []string{"/etc/resolv.conf"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"clusterIP: 10.96.0.10\n", "    kubernetes corp.local in-addr.arpa ip6.arpa {\n", "replicas: 2\n",
		"image: " + image + "\n", "imagePullPolicy: Never\n", "    forward . /etc/resolv.conf {\n", "add: [NET_BIND_SERVICE]"} {
		if !strings.Contains(m, want) {
			t.Errorf("CoreDNS manifest lacks %q", want)
		}
	}
	if strings.Count(m, "\n---\n") != 5 {
		t.Errorf("CoreDNS manifest has %d separators, want 5 (six objects)", strings.Count(m, "\n---\n"))
	}
	noUpstream, err := renderCoreDNS(coreDNSSettings{Image: image, Replicas: 1, DNSIP: ip, DNSDomain: "cluster.local"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(noUpstream, "forward") {
		t.Errorf("without upstream the Corefile still forwards (CoreDNS would refuse to start):\n%s", noUpstream)
	}
}

// The image the add-on runs, for each minor make bundle builds (1.31, 1.36,
// 1.37: the rows of tools/bundle/minors.tsv), is a release the bundle has a
// module for: tools/bundle/coredns/RELEASE requires that release.
func TestCoreDNSImageIsTheBundlesRelease(t *testing.T) {
	for _, v := range []string{"1.31.4", "1.36.5", "1.37.2"} {
		m, err := resources.MinorOf(v)
		if err != nil {
			t.Fatal(err)
		}
		tag := m.CoreDNS[strings.LastIndex(m.CoreDNS, ":")+1:]
		mod, err := os.ReadFile(filepath.Join("../../tools/bundle/coredns", tag, "go.mod"))
		if err != nil {
			t.Errorf("1.%d's CoreDNS image is %s, but the bundle has no module for it: %v", m.Minor, m.CoreDNS, err)
			continue
		}
		if !regexp.MustCompile(`(?m)^\s*(require )?github.com/coredns/coredns ` + regexp.QuoteMeta(tag) + `$`).Match(mod) {
			t.Errorf("1.%d's CoreDNS image is %s, but the bundle's coredns/%s module requires another release:\n%s", m.Minor, m.CoreDNS, tag, mod)
		}
	}
}

func TestAddonExpand(t *testing.T) {
	c := addonCluster(t)
	dir := t.TempDir()
	resourcestest.WriteFile(t, filepath.Join(dir, "metrics.yaml"), "kind: Namespace\n", 0o644)
	c.Addons.Manifests = []resources.AddonManifest{{Name: "metrics", Path: filepath.Join(dir, "metrics.yaml"), Source: "main.hcl:5"}}
	ds, err := Addon{}.Expand(c)
	if err != nil || len(ds) != 3 || ds[2].Addr != "addon.flannel" {
		t.Fatalf("Expand = %v, %v; want coredns, metrics and flannel", ds, err)
	}
	// flannel's RBAC needs the API only: every worker's flanneld waits for it.
	if d := ds[2]; !slices.Equal(d.DependsOn, []string{`service.kube-apiserver["m0"]`}) {
		t.Errorf("%s depends on %q, want the apiserver only", d.Addr, d.DependsOn)
	}
	wantDeps := []string{`service.kube-apiserver["m0"]`, `service.kubelet["w0"]`, `service.flanneld["w0"]`, `service.kube-proxy["w0"]`}
	for _, d := range ds[:2] {
		if !slices.Equal(d.DependsOn, wantDeps) {
			t.Errorf("%s depends on %q, want %q", d.Addr, d.DependsOn, wantDeps)
		}
		if m, err := manifestOf(d.Addr, d.Attrs); err != nil || resources.SHA256Hex(m) != d.Attrs[addonSHA256] {
			t.Errorf("%s: manifest at apply = %v; want the planned one", d.Addr, err)
		}
	}
	if got := ds[1].Attrs[addonSHA256]; got != resources.SHA256Hex("kind: Namespace\n") {
		t.Errorf("metrics sha256 = %v", got)
	}
	// A file edited after the plan is refused at apply.
	resourcestest.WriteFile(t, filepath.Join(dir, "metrics.yaml"), "kind: Secret\n", 0o644)
	if _, err := manifestOf(ds[1].Addr, ds[1].Attrs); err == nil || !strings.Contains(err.Error(), "changed since the plan") {
		t.Errorf("manifest edited after plan: %v", err)
	}

	// A bundle without coredns.tar is refused when the plan is made.
	c.Packages = t.TempDir()
	if _, err := (Addon{}).Expand(c); err == nil || !strings.Contains(err.Error(), "coredns.tar") || !strings.Contains(err.Error(), "main.hcl:1") {
		t.Errorf("Expand with a bundle lacking coredns.tar: %v", err)
	}
	resourcestest.WriteFile(t, filepath.Join(c.Packages, "amd64", resources.CoreDNSArchive), "tar", 0o644)
	if _, err := (Addon{}).Expand(c); err != nil {
		t.Errorf("Expand with coredns.tar in the bundle: %v", err)
	}
}

func TestParseObjects(t *testing.T) {
	stream := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"x"}}
{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}]}`
	objs, err := parseObjects(stream)
	want := []addonObject{{"v1", "ConfigMap", "x", "a"}, {"apps/v1", "Deployment", "", "d"}}
	if err != nil || !slices.Equal(objs, want) {
		t.Fatalf("parseObjects = %v, %v; want %v", objs, err, want)
	}
	if got := objs[1].kubectlArgs(); got != "'Deployment.v1.apps/d'" {
		t.Errorf("kubectl args of a Deployment = %s", got)
	}
	if got := objs[0].kubectlArgs(); got != "'ConfigMap/a' -n 'x'" {
		t.Errorf("kubectl args of a ConfigMap = %s", got)
	}
	if _, err := parseObjects(stream + "\n" + `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"x"}}`); err == nil {
		t.Error("an object twice in a manifest was accepted")
	}
}

// fakeAddonKubectl is a kubectl on PATH that logs its calls, prints
// objects.json for label --local, answers get from the present file
// (one TYPE/NAME per line) and a get of the add-on label with coredns
// (but for the objects of the unlabelled file), and fails rollout status
// when rollout-fails exists.
func fakeAddonKubectl(t *testing.T) (dir string) {
	dir = t.TempDir()
	script := `#!/bin/sh
d=` + shell.Quote(dir) + `
echo "$*" >> "$d/calls"
case "$*" in
*"label --local"*) cat "$d/objects.json" ;;
*" apply "*) ;;
*" get "*"-o jsonpath="*) grep -qx "$4" "$d/unlabelled" 2>/dev/null || printf coredns ;;
*" get "*) grep -qx "$4" "$d/present" && echo "$4" ;;
*" delete "*) ;;
*"rollout status"*) if [ -e "$d/rollout-fails" ]; then echo 'Waiting for deployment "coredns" rollout to finish: 0 of 2 updated replicas are available...'; echo 'error: timed out waiting for the condition' >&2; exit 1; fi ;;
*) echo "unexpected kubectl $*" >&2; exit 3 ;;
esac
exit 0
`
	resourcestest.WriteFile(t, filepath.Join(dir, "kubectl"), script, 0o755)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

func TestAddonLifecycleWithFakeKubectl(t *testing.T) {
	k := fakeAddonKubectl(t)
	objects := `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"coredns","namespace":"kube-system"}}
{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"coredns","namespace":"kube-system"}}
{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"coredns","namespace":"kube-system"}}`
	resourcestest.WriteFile(t, filepath.Join(k, "objects.json"), objects, 0o644)
	calls := func() []string { return resourcestest.KubectlCalls(t, filepath.Join(k, "calls")) }
	ds, err := Addon{}.Expand(addonCluster(t))
	if err != nil {
		t.Fatal(err)
	}
	d := ds[0]
	ctx := context.Background()
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	var checkpointed resources.Attrs
	rc.Checkpoint = func(_ string, a resources.Attrs) error { checkpointed = a; return nil }

	attrs, err := Addon{}.Create(ctx, rc, d, resources.Change{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got := objectsOf(checkpointed[addonObjects]); len(got) != 3 {
		t.Errorf("checkpoint before the apply recorded %v, want the 3 objects", got)
	}
	c := calls()
	if len(c) != 4 || !strings.Contains(c[0], "label --local") || !strings.Contains(c[0], "eggo.io/addon=coredns --overwrite -o json") ||
		!strings.Contains(c[2], "apply --server-side --force-conflicts --field-manager=eggo -f") ||
		c[3] != "--kubeconfig /etc/kubernetes/admin.conf rollout status Deployment.v1.apps/coredns -n kube-system --timeout=3m0s" {
		t.Errorf("kubectl calls of Create = %q", c)
	}
	if got := objectsOf(attrs[addonObjects]); len(got) != 3 || got[2].String() != "Deployment kube-system/coredns" {
		t.Errorf("recorded objects = %v", got)
	}

	// Refresh: the Deployment was deleted outside eggo.
	resourcestest.WriteFile(t, filepath.Join(k, "present"), "ServiceAccount/coredns\nConfigMap/coredns\n", 0o644)
	prior := resources.Object{Addr: d.Addr, Kind: "addon", Attrs: resources.Attrs(resources.Normalize(map[string]any(attrs)).(map[string]any))}
	live, drift, err := Addon{}.Read(ctx, rc, prior)
	if err != nil || len(drift) != 1 || !strings.Contains(drift[0].Detail, "Deployment kube-system/coredns") {
		t.Fatalf("Read = %v, %v; want drift naming the Deployment", drift, err)
	}
	ch, _ := Addon{}.Plan(ctx, rc, &resources.Object{Addr: d.Addr, Attrs: live}, d)
	if ch.Action != resources.Update || ch.Reasons[0].Code != resources.ReasonDrift {
		t.Errorf("Plan after the Deployment went = %s %v, want an update for drift", ch.Action, ch.Reasons)
	}
	ch, _ = Addon{}.Plan(ctx, rc, &prior, d)
	if ch.Action != resources.NoOp {
		t.Errorf("Plan with nothing missing = %s %v, want no-op", ch.Action, ch.Reasons)
	}

	// Update to a manifest without the ConfigMap: it is pruned.
	os.Remove(filepath.Join(k, "calls"))
	resourcestest.WriteFile(t, filepath.Join(k, "objects.json"), strings.Replace(objects, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"coredns","namespace":"kube-system"}}`, "", 1), 0o644)
	if _, err := (Addon{}).Update(ctx, rc, prior, d, resources.Change{}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if c := calls(); len(c) != 6 || c[3] != "--kubeconfig /etc/kubernetes/admin.conf get ConfigMap/coredns -n kube-system --ignore-not-found -o jsonpath={.metadata.labels.eggo\\.io/addon}" ||
		c[4] != "--kubeconfig /etc/kubernetes/admin.conf delete ConfigMap/coredns -n kube-system --ignore-not-found --wait=false" {
		t.Errorf("kubectl calls of Update = %q, want the ConfigMap deleted after the apply", c)
	}

	// An unavailable Deployment fails with the add-on's name and kubectl's words.
	resourcestest.WriteFile(t, filepath.Join(k, "rollout-fails"), "", 0o644)
	addonHealthTimeout = time.Second
	t.Cleanup(func() { addonHealthTimeout = kube.DefaultHealthTimeout })
	_, err = Addon{}.Create(ctx, rc, d, resources.Change{})
	if err == nil || !strings.Contains(err.Error(), "addon.coredns: add-on coredns unhealthy: Deployment kube-system/coredns is not available within 1s") ||
		!strings.Contains(err.Error(), "0 of 2 updated replicas are available") {
		t.Errorf("Create with an unavailable Deployment: %v", err)
	}

	// Delete removes the recorded objects, last first; destroy skips it.
	os.Remove(filepath.Join(k, "calls"))
	if _, err := (Addon{}).Delete(ctx, rc, prior); err != nil {
		t.Fatal(err)
	}
	c = calls()
	if len(c) != 6 || !strings.Contains(c[1], "delete Deployment.v1.apps/coredns") || !strings.Contains(c[5], "delete ServiceAccount/coredns") {
		t.Errorf("kubectl calls of Delete = %q", c)
	}
	// An object the state names that does not carry the add-on's label
	// (a crafted record: kube-system itself) is not deleted.
	crafted := prior
	crafted.Attrs = maps.Clone(prior.Attrs)
	crafted.Attrs[addonObjects] = []any{map[string]any{"api_version": "v1", "kind": "Namespace", "name": "kube-system"}}
	resourcestest.WriteFile(t, filepath.Join(k, "unlabelled"), "Namespace/kube-system\n", 0o644)
	os.Remove(filepath.Join(k, "calls"))
	if _, err := (Addon{}).Delete(ctx, rc, crafted); err != nil {
		t.Fatal(err)
	}
	if c := calls(); len(c) != 1 || !strings.Contains(c[0], "get Namespace/kube-system") {
		t.Errorf("kubectl calls of a Delete of an object without the add-on's label = %q, want only its label read", c)
	}
	rc.Destroy = true
	os.Remove(filepath.Join(k, "calls"))
	if _, err := (Addon{}).Delete(ctx, rc, prior); err != nil || calls() != nil {
		t.Errorf("Delete during destroy: %v, calls %q; want nothing done", err, calls())
	}
}

// kube_proxy = false: add-ons do not wait for a kube-proxy that is not there.
func TestAddonsDoNotWaitForAbsentKubeProxy(t *testing.T) {
	c := &resources.Cluster{Name: "c", KubernetesVersion: "1.31.4", ConfigDir: "/etc/kubernetes",
		Network: resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		Addons:  resources.Addons{CoreDNS: true, CoreDNSReplicas: 1, SkipKubeProxy: true},
		Nodes: []resources.Node{
			{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}},
			{Name: "w0", Address: "10.0.0.21", Roles: []string{"worker"}},
		}}
	addons, err := Addon{}.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range addons {
		for _, dep := range d.DependsOn {
			if dep == resources.ServiceAddr(resources.CompKubeProxy, "w0") {
				t.Errorf("%s waits for a kube-proxy that is not there", d.Addr)
			}
		}
	}
}

// The cluster DNS address is the tenth of the service range in either IP
// family, and a range without a tenth address is an error, not a wrap.
func TestClusterDNSIPBothFamilies(t *testing.T) {
	for cidr, want := range map[string]string{"10.96.0.0/12": "10.96.0.10", "fd00:32::/108": "fd00:32::a", "10.0.0.0/24": "10.0.0.10"} {
		if got, err := resources.ClusterDNSIP(cidr); err != nil || got != want {
			t.Errorf("ClusterDNSIP(%s) = %q, %v; want %s", cidr, got, err, want)
		}
	}
	if got, err := resources.ClusterDNSIP("10.0.0.0/29"); err == nil {
		t.Errorf("a /29 has no tenth address, got %s", got)
	}
}
