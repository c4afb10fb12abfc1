package kube

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// Rolling stages of an upgrade: etcd, then the control plane, then the load
// balancers, then the Nodes' components (masters' and workers').
const (
	stageEtcd = iota
	stageControlPlane
	stageLoadBalancers
	stageNodes
)

// componentServices expands the service kind: every component on every
// node that runs it.
func componentServices(c *resources.Cluster) ([]resources.Desired, error) {
	// Each node's services are made on their own (what nodes have alike
	// comes from resources.Shared), on every core for a large cluster;
	// the answer is in node order, errors included.
	perNode := make([][]resources.Desired, len(c.Nodes))
	errs := make([]error, len(c.Nodes))
	resources.EachInParallel(len(c.Nodes), func(i int) {
		perNode[i], errs[i] = nodeServices(c, c.Nodes[i])
	})
	var out []resources.Desired
	for i, ds := range perNode {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out = append(out, ds...)
	}
	return out, nil
}

// nodeServices are the services of node n.
func nodeServices(c *resources.Cluster, n resources.Node) ([]resources.Desired, error) {
	var specs []componentSpec
	if n.HasRole("master") {
		specs = append(specs, apiServer(c, n), controllerManager(c, n), scheduler(c, n))
	}
	if n.HasRole("loadbalance") {
		specs = append(specs, loadBalancer(c, n))
	}
	if n.IsKubeNode() {
		flannel, err := flanneld(c, n)
		if err != nil {
			return nil, resources.Blame(c.At("network.pod_cidr"), "Unusable pod_cidr",
				"%s: %v", resources.ServiceAddr(resources.CompFlannel, n.Name), err)
		}
		// Their hosts name directories and files: checked again here for a
		// Cluster engine/config did not build.
		if err := resources.CheckRegistryMirrors(c.Runtime.RegistryMirrors); err != nil {
			return nil, resources.Blame(c.At("runtime.registry_mirrors"), "Invalid registry_mirrors",
				"%s: %v", resources.ServiceAddr(resources.CompContainerd, n.Name), err)
		}
		specs = append(specs, containerd(c, n), Kubelet(c, n))
		if !c.Addons.SkipKubeProxy {
			specs = append(specs, kubeProxy(c, n))
		}
		specs = append(specs, flannel)
	}
	out := make([]resources.Desired, 0, len(specs))
	for _, s := range specs {
		if err := resources.CheckBundleFiles(c, n, s.Component, resources.ServiceAddr(s.Component, n.Name)); err != nil {
			return nil, err
		}
		if s.Pod != nil {
			if err := resources.CheckBundleFile(c, n, resources.ControlPlaneImage(s.Component), resources.ServiceAddr(s.Component, n.Name)); err != nil {
				return nil, err
			}
		}
		if s.program != "" {
			v, err := programVersion(c, n, s.program)
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %w", resources.ServiceAddr(s.Component, n.Name), n.Source, err)
			}
			s.Version = v
		}
		out = append(out, s.desired(c, n))
	}
	return out, nil
}

// sharedKey names what kube's components build once per plan for every
// node alike (resources.Shared).
type sharedKey string

// componentSpec is one component on one node before it becomes a Desired.
type componentSpec struct {
	service
	deps []string
	roll *resources.Roll
	// program, when set, is the bundle file whose digest is the service's
	// Version (program_version.go), not the Kubernetes version.
	program string
}

func (s componentSpec) desired(c *resources.Cluster, n resources.Node) resources.Desired {
	attrs := s.attrs()
	attrs[svcAddress] = n.Address
	attrs[svcConnection] = resources.ConnectionAttrsIn(c, n)
	deps := append([]string{resources.HostAddr(n.Name)}, s.deps...)
	sort.Strings(deps)
	return resources.Desired{
		Addr:      resources.ServiceAddr(s.Component, n.Name),
		Kind:      "service",
		Node:      n.Name,
		Source:    n.Source,
		Range:     n.Ranges.Block,
		Attrs:     attrs,
		DependsOn: deps,
		Roll:      s.roll,
	}
}

// certFile and friends build a component's file list.
func certFile(dir, name string, ref resources.Ref) serviceFile {
	mode := "0644"
	if ref.Attr == "key" {
		mode = "0600"
	}
	return serviceFile{Path: path.Join(dir, name), Mode: mode, Content: ref}
}

func certRef(name, node, attr string) resources.Ref {
	return resources.Ref{Addr: resources.CertAddr(name, node), Attr: attr}
}

func pkiRef(name, attr string) resources.Ref {
	return resources.Ref{Addr: resources.PKIAddr(name), Attr: attr}
}

// kubeconfigFile is a kubeconfig authenticating with a leaf certificate.
func kubeconfigFile(c *resources.Cluster, file, server, user, cert, node string) serviceFile {
	return serviceFile{Path: file, Mode: "0600", Kubeconfig: map[string]any{
		"cluster": c.Name,
		"server":  server,
		"ca":      pkiRef(resources.PKIClusterCA, "cert"),
		"user":    user,
		"cert":    certRef(cert, node, "cert"),
		"key":     certRef(cert, node, "key"),
	}}
}

// flags renders command-line flags: eggo's own, overridden and extended by
// the cluster's extra_args for the component, sorted for a stable unit.
func flags(c *resources.Cluster, component string, own map[string]string) []string {
	all := make(map[string]string, len(own))
	for k, v := range own {
		all[k] = v
	}
	for k, v := range c.ExtraArgs[component] {
		all[k] = v
	}
	names := make([]string, 0, len(all))
	for k := range all {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, k := range names {
		out[i] = "--" + k + "=" + all[k]
	}
	return out
}

// unitOptions are what differs between the units of the components.
type unitOptions struct {
	description string
	exec        string   // binary
	args        []string // flags
	// specifierArgs follow args unquoted, so systemd expands their
	// specifiers (%m, the machine ID): eggo's own constants only, never
	// a value from the configuration.
	specifierArgs []string
	after         []string // units to start after (and want)
	typ           string   // simple (default) | notify
	extra         []string // more [Service] lines
}

// renderUnit writes a systemd unit. systemd restarts the component if it
// dies; eggo restarts it only when something it controls changed.
func renderUnit(o unitOptions) string {
	var b strings.Builder
	b.WriteString("[Unit]\nDescription=" + o.description + "\n")
	after := append([]string{"network-online.target"}, o.after...)
	b.WriteString("Wants=" + strings.Join(after, " ") + "\nAfter=" + strings.Join(after, " ") + "\n\n")
	b.WriteString("[Service]\n")
	if o.typ != "" {
		b.WriteString("Type=" + o.typ + "\n")
	}
	b.WriteString("ExecStart=" + o.exec)
	for _, a := range o.args {
		b.WriteString(" \\\n  " + unitArg(a))
	}
	for _, a := range o.specifierArgs {
		b.WriteString(" \\\n  " + a)
	}
	b.WriteString("\nRestart=always\nRestartSec=5\nLimitNOFILE=1048576\n")
	for _, l := range o.extra {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n[Install]\nWantedBy=multi-user.target\n")
	return b.String()
}

// httpCheck is a shell check of a plain-HTTP endpoint on the node itself
// with bash's /dev/tcp: no curl needed on the host.
func httpCheck(port int, path, want string) string {
	return fmt.Sprintf(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && printf "GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n" >&3 && grep -q %q <&3'`, port, path, want)
}

// tlsHealthz checks a component's HTTPS /healthz anonymously, as kubeadm's
// liveness probes do. The dummy basic credentials only stop kubectl from
// prompting for a user: the component ignores them and serves /healthz to
// anyone.
func tlsHealthz(port int) string {
	return fmt.Sprintf("KUBECONFIG=/dev/null kubectl --server=https://127.0.0.1:%d --insecure-skip-tls-verify=true --username=eggo --password=health-check get --raw /healthz </dev/null", port)
}

func gitVersion(v string) string { return "v" + strings.TrimPrefix(v, "v") }

// kubectlWith is the command line of kubectl talking to the API as the
// kubeconfig at path says (a path under config_dir: quoted).
func kubectlWith(path string) string { return "kubectl --kubeconfig " + shell.Quote(path) }

const DefaultHealthTimeout = 3 * time.Minute
