package kube

import (
	"fmt"
	"net"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// AdminKubeconfigPath is the admin kubeconfig on every master, which eggo's
// own checks (readiness, drain) and the operator on the machine use.
func AdminKubeconfigPath(c *resources.Cluster) string {
	return path.Join(c.ConfigDir, adminKubeconfigName)
}

// adminKubeconfigName is the admin kubeconfig's name in config_dir.
const adminKubeconfigName = "admin.conf"

func localAPIServer() string { return "https://127.0.0.1:" + strconv.Itoa(resources.APIServerPort) }

func apiServer(c *resources.Cluster, n resources.Node) componentSpec {
	dir := path.Join(c.ConfigDir, resources.CompAPIServer)
	f := func(name string) string { return path.Join(dir, name) }
	files := []serviceFile{
		certFile(dir, "ca.crt", pkiRef(resources.PKIClusterCA, "cert")),
		certFile(dir, "apiserver.crt", certRef(resources.CertAPIServer, n.Name, "cert")),
		certFile(dir, "apiserver.key", certRef(resources.CertAPIServer, n.Name, "key")),
		certFile(dir, "kubelet-client.crt", certRef(resources.CertAPIServerKubeletClient, "", "cert")),
		certFile(dir, "kubelet-client.key", certRef(resources.CertAPIServerKubeletClient, "", "key")),
		certFile(dir, "etcd-ca.crt", pkiRef(resources.PKIEtcdCA, "cert")),
		certFile(dir, "etcd-client.crt", certRef(resources.CertAPIServerEtcdClient, "", "cert")),
		certFile(dir, "etcd-client.key", certRef(resources.CertAPIServerEtcdClient, "", "key")),
		certFile(dir, "front-proxy-ca.crt", pkiRef(resources.PKIFrontProxyCA, "cert")),
		certFile(dir, "front-proxy-client.crt", certRef(resources.CertFrontProxyClient, "", "cert")),
		certFile(dir, "front-proxy-client.key", certRef(resources.CertFrontProxyClient, "", "key")),
		{Path: f("sa.pub"), Mode: "0644", Content: pkiRef(resources.PKIServiceAccount, "public_key")},
		{Path: f("sa.key"), Mode: "0600", Content: pkiRef(resources.PKIServiceAccount, "key")},
		kubeconfigFile(c, AdminKubeconfigPath(c), localAPIServer(), "kubernetes-admin", resources.CertAdmin, ""),
	}
	domain := c.DNSDomain()
	own := map[string]string{
		"advertise-address":                  n.Address,
		"allow-privileged":                   "true",
		"authorization-mode":                 "Node,RBAC",
		"bind-address":                       "0.0.0.0",
		"client-ca-file":                     f("ca.crt"),
		"enable-admission-plugins":           "NodeRestriction",
		"etcd-cafile":                        f("etcd-ca.crt"),
		"etcd-certfile":                      f("etcd-client.crt"),
		"etcd-keyfile":                       f("etcd-client.key"),
		"etcd-servers":                       strings.Join(c.EtcdClientURLs(), ","),
		"kubelet-client-certificate":         f("kubelet-client.crt"),
		"kubelet-client-key":                 f("kubelet-client.key"),
		"kubelet-preferred-address-types":    "InternalIP,Hostname",
		"proxy-client-cert-file":             f("front-proxy-client.crt"),
		"proxy-client-key-file":              f("front-proxy-client.key"),
		"requestheader-allowed-names":        "front-proxy-client",
		"requestheader-client-ca-file":       f("front-proxy-ca.crt"),
		"requestheader-extra-headers-prefix": "X-Remote-Extra-",
		"requestheader-group-headers":        "X-Remote-Group",
		"requestheader-username-headers":     "X-Remote-User",
		"secure-port":                        strconv.Itoa(resources.APIServerPort),
		"service-account-issuer":             "https://kubernetes.default.svc." + domain,
		// Long enough for load balancers to see /readyz fail and drain it
		// before a restart stops it serving (see lbDrainTime).
		"shutdown-delay-duration":                 apiserverShutdownDelay.String(),
		"shutdown-watch-termination-grace-period": apiserverWatchDrain.String(),
		"service-account-key-file":                f("sa.pub"),
		"service-account-signing-key-file":        f("sa.key"),
		"service-cluster-ip-range":                c.Network.ServiceCIDR,
		"tls-cert-file":                           f("apiserver.crt"),
		"tls-private-key-file":                    f("apiserver.key"),
	}
	var deps []string
	for _, e := range c.NodesWithRole("etcd") {
		deps = append(deps, EtcdMemberAddr(e.Name))
	}
	spec := componentSpec{
		service: service{
			Component:     resources.CompAPIServer,
			Files:         files,
			Health:        apiServerHealth(c, n),
			HealthTimeout: DefaultHealthTimeout,
			Version:       c.KubernetesVersion,
		},
		deps: deps,
		roll: controlPlaneRoll(n),
	}
	controlPlaneRunner(c, n, &spec,
		unitOptions{description: "Kubernetes API server (eggo)", exec: "/usr/local/bin/kube-apiserver",
			args: flags(c, resources.CompAPIServer, own), typ: "notify"},
		podOptions{probe: httpProbe{host: n.Address, port: resources.APIServerPort, live: "/livez", ready: "/readyz"},
			cpu: "250m", mount: []string{dir, caCertsDir}})
	return spec
}

// apiServerHealth: ready, serving the version this apply installed, and
// still ready once the load balancers have had time to take it back
// (lbReaddTime): the next master's apiserver restarts only after this one
// serves through them again. In the pod implementation, also the master's
// controller manager and scheduler running again (podsRecovered).
func apiServerHealth(c *resources.Cluster, n resources.Node) string {
	health := fmt.Sprintf("%[1]s get --raw /readyz >/dev/null && %[1]s get --raw /version | grep -qF %[2]s && sleep %[3]d && %[1]s get --raw /readyz >/dev/null",
		kubectlWith(AdminKubeconfigPath(c)), shell.Quote(`"gitVersion": "`+gitVersion(c.KubernetesVersion)+`"`), int(lbReaddTime/time.Second))
	if c.StaticPods() {
		health += " && " + podsRecovered(resources.CompControllerManager+"-"+n.Name, resources.CompScheduler+"-"+n.Name)
	}
	return health
}

// caCertsDir is the host's CA certificates, which kubeadm's pods mount for
// the outgoing TLS of the apiserver (webhooks, OIDC) and controller manager.
const caCertsDir = "/etc/ssl/certs"

func controllerManager(c *resources.Cluster, n resources.Node) componentSpec {
	dir := path.Join(c.ConfigDir, resources.CompControllerManager)
	f := func(name string) string { return path.Join(dir, name) }
	kubeconfig := f("kubeconfig")
	own := map[string]string{
		"authentication-kubeconfig":        kubeconfig,
		"authorization-kubeconfig":         kubeconfig,
		"bind-address":                     "127.0.0.1",
		"client-ca-file":                   f("ca.crt"),
		"cluster-cidr":                     c.Network.PodCIDR,
		"cluster-name":                     c.Name,
		"cluster-signing-cert-file":        f("ca.crt"),
		"cluster-signing-key-file":         f("ca.key"),
		"kubeconfig":                       kubeconfig,
		"leader-elect":                     "true",
		"root-ca-file":                     f("ca.crt"),
		"service-account-private-key-file": f("sa.key"),
		"service-cluster-ip-range":         c.Network.ServiceCIDR,
		"use-service-account-credentials":  "true",
	}
	return controlPlaneComponent(c, n, resources.CompControllerManager, "Kubernetes controller manager (eggo)", 10257, "200m", own, []serviceFile{
		kubeconfigFile(c, kubeconfig, localAPIServer(), "system:kube-controller-manager", resources.CertControllerManager, ""),
		certFile(dir, "ca.crt", pkiRef(resources.PKIClusterCA, "cert")),
		certFile(dir, "ca.key", pkiRef(resources.PKIClusterCA, "key")),
		{Path: f("sa.key"), Mode: "0600", Content: pkiRef(resources.PKIServiceAccount, "key")},
	})
}

func scheduler(c *resources.Cluster, n resources.Node) componentSpec {
	dir := path.Join(c.ConfigDir, resources.CompScheduler)
	kubeconfig := path.Join(dir, "kubeconfig")
	own := map[string]string{
		"authentication-kubeconfig": kubeconfig,
		"authorization-kubeconfig":  kubeconfig,
		"bind-address":              "127.0.0.1",
		"kubeconfig":                kubeconfig,
		"leader-elect":              "true",
	}
	return controlPlaneComponent(c, n, resources.CompScheduler, "Kubernetes scheduler (eggo)", 10259, "100m", own, []serviceFile{
		kubeconfigFile(c, kubeconfig, localAPIServer(), "system:kube-scheduler", resources.CertScheduler, ""),
	})
}

// controlPlaneComponent is a component that talks to its own master's
// apiserver and serves /healthz on a local port.
func controlPlaneComponent(c *resources.Cluster, n resources.Node, name, description string, port int, cpu string, own map[string]string, files []serviceFile) componentSpec {
	spec := componentSpec{
		service: service{
			Component:     name,
			Files:         files,
			Health:        tlsHealthz(port) + " >/dev/null",
			HealthTimeout: DefaultHealthTimeout,
			Version:       c.KubernetesVersion,
		},
		deps: []string{resources.ServiceAddr(resources.CompAPIServer, n.Name)},
		roll: controlPlaneRoll(n),
	}
	mount := []string{path.Join(c.ConfigDir, name)}
	if name == resources.CompControllerManager {
		mount = append(mount, caCertsDir)
	}
	controlPlaneRunner(c, n, &spec,
		unitOptions{description: description, exec: "/usr/local/bin/" + name,
			args: flags(c, name, own), after: []string{resources.CompAPIServer + ".service"}},
		podOptions{probe: httpProbe{host: "127.0.0.1", port: port, live: "/healthz"}, cpu: cpu, mount: mount})
	return spec
}

// loadBalancer is haproxy in TCP mode in front of every apiserver.
func loadBalancer(c *resources.Cluster, n resources.Node) componentSpec {
	dir := path.Join(c.ConfigDir, resources.CompLoadBalancer)
	cfgPath := path.Join(dir, "haproxy.cfg")
	var b strings.Builder
	b.WriteString(`global
  maxconn 4096
defaults
  mode tcp
  timeout connect 3s
  timeout client 1h
  timeout server 1h
  retries 3
  option redispatch
frontend kube-apiserver
  bind :` + strconv.Itoa(resources.APIServerPort) + `
  default_backend kube-apiservers
backend kube-apiservers
  balance roundrobin
  # An apiserver that is shutting down fails /readyz first (see
  # shutdown-delay-duration): it leaves the pool before it stops serving.
  # Not for etcd's checks: every apiserver shares etcd, so a slow etcd
  # (a member's restart in an upgrade) would fail them all at once and
  # leave the pool empty, when they can still serve.
  option httpchk GET ` + lbReadyz + `
  http-check expect status 200
  timeout check ` + seconds(lbCheckInterval) + `
  default-server inter ` + seconds(lbCheckInterval) + ` fall ` + strconv.Itoa(lbFall) + ` rise ` + strconv.Itoa(lbRise) + ` check-ssl verify none
`)
	var deps []string
	for _, m := range c.NodesWithRole("master") {
		fmt.Fprintf(&b, "  server %s %s check\n", m.Name, net.JoinHostPort(m.Address, strconv.Itoa(resources.APIServerPort)))
		deps = append(deps, resources.ServiceAddr(resources.CompAPIServer, m.Name))
	}
	return componentSpec{
		service: service{
			Component: resources.CompLoadBalancer,
			UnitName:  resources.CompLoadBalancer + ".service",
			Unit: renderUnit(unitOptions{description: "Kubernetes API load balancer (eggo, haproxy)", exec: "/usr/sbin/haproxy",
				args: []string{"-Ws", "-f", cfgPath}, typ: "notify",
				extra: []string{"ExecStartPre=/usr/sbin/haproxy -c -q -f " + cfgPath}}),
			Files:         []serviceFile{{Path: cfgPath, Mode: "0644", Content: b.String()}},
			Health:        fmt.Sprintf("bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d'", resources.APIServerPort),
			HealthTimeout: DefaultHealthTimeout,
			// No Version: haproxy does not change with Kubernetes.
		},
		deps: deps,
		roll: &resources.Roll{Group: "loadbalancers", Stage: stageLoadBalancers, Unit: n.Name, Batch: 1},
	}
}
