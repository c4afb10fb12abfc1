package resources

import (
	"fmt"
	"net"
	"path"
	"strconv"
	"strings"

	"github.com/eggo-project/eggo/resources/pki"
)

// AdminKubeconfigPath is the admin kubeconfig on every master, which eggo's
// own checks (readiness, drain) and the operator on the machine use.
func AdminKubeconfigPath(c *Cluster) string { return path.Join(c.ConfigDir, "admin.conf") }

func localAPIServer() string { return "https://127.0.0.1:" + strconv.Itoa(APIServerPort) }

func apiServer(c *Cluster, n Node) componentSpec {
	dir := path.Join(c.ConfigDir, CompAPIServer)
	f := func(name string) string { return path.Join(dir, name) }
	files := []serviceFile{
		certFile(dir, "ca.crt", pkiRef(PKIClusterCA, "cert")),
		certFile(dir, "apiserver.crt", certRef(CertAPIServer, n.Name, "cert")),
		certFile(dir, "apiserver.key", certRef(CertAPIServer, n.Name, "key")),
		certFile(dir, "kubelet-client.crt", certRef(CertAPIServerKubeletClient, "", "cert")),
		certFile(dir, "kubelet-client.key", certRef(CertAPIServerKubeletClient, "", "key")),
		certFile(dir, "etcd-ca.crt", pkiRef(PKIEtcdCA, "cert")),
		certFile(dir, "etcd-client.crt", certRef(CertAPIServerEtcdClient, "", "cert")),
		certFile(dir, "etcd-client.key", certRef(CertAPIServerEtcdClient, "", "key")),
		certFile(dir, "front-proxy-ca.crt", pkiRef(PKIFrontProxyCA, "cert")),
		certFile(dir, "front-proxy-client.crt", certRef(CertFrontProxyClient, "", "cert")),
		certFile(dir, "front-proxy-client.key", certRef(CertFrontProxyClient, "", "key")),
		{Path: f("sa.pub"), Mode: "0644", Content: pkiRef(PKIServiceAccount, "public_key")},
		{Path: f("sa.key"), Mode: "0600", Content: pkiRef(PKIServiceAccount, "key")},
		kubeconfigFile(c, AdminKubeconfigPath(c), localAPIServer(), "kubernetes-admin", CertAdmin, ""),
	}
	domain := attrOr(c.Network.DNSDomain, pki.DefaultDNSDomain)
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
		"secure-port":                        strconv.Itoa(APIServerPort),
		"service-account-issuer":             "https://kubernetes.default.svc." + domain,
		// Long enough for load balancers to see /readyz fail and drain it
		// before a restart stops it serving.
		"shutdown-delay-duration":          "5s",
		"service-account-key-file":         f("sa.pub"),
		"service-account-signing-key-file": f("sa.key"),
		"service-cluster-ip-range":         c.Network.ServiceCIDR,
		"tls-cert-file":                    f("apiserver.crt"),
		"tls-private-key-file":             f("apiserver.key"),
	}
	var deps []string
	for _, e := range c.NodesWithRole("etcd") {
		deps = append(deps, EtcdMemberAddr(e.Name))
	}
	admin := "kubectl --kubeconfig " + AdminKubeconfigPath(c)
	return componentSpec{
		service: service{
			Component: CompAPIServer,
			UnitName:  CompAPIServer + ".service",
			Unit: renderUnit(unitOptions{description: "Kubernetes API server (eggo)", exec: "/usr/local/bin/kube-apiserver",
				args: flags(c, CompAPIServer, own), typ: "notify"}),
			Files: files,
			// Ready, and serving the version this apply installed.
			Health: fmt.Sprintf("%s get --raw /readyz >/dev/null && %s get --raw /version | grep -q '\"gitVersion\": \"%s\"'",
				admin, admin, gitVersion(c.KubernetesVersion)),
			HealthTimeout: defaultHealthTimeout,
			Version:       c.KubernetesVersion,
		},
		deps: deps,
		roll: &Roll{Group: "control-plane", Stage: stageControlPlane, Unit: n.Name, Batch: 1},
	}
}

func controllerManager(c *Cluster, n Node) componentSpec {
	dir := path.Join(c.ConfigDir, CompControllerManager)
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
	return controlPlaneComponent(c, n, CompControllerManager, "Kubernetes controller manager (eggo)", 10257, own, []serviceFile{
		kubeconfigFile(c, kubeconfig, localAPIServer(), "system:kube-controller-manager", CertControllerManager, ""),
		certFile(dir, "ca.crt", pkiRef(PKIClusterCA, "cert")),
		certFile(dir, "ca.key", pkiRef(PKIClusterCA, "key")),
		{Path: f("sa.key"), Mode: "0600", Content: pkiRef(PKIServiceAccount, "key")},
	})
}

func scheduler(c *Cluster, n Node) componentSpec {
	dir := path.Join(c.ConfigDir, CompScheduler)
	kubeconfig := path.Join(dir, "kubeconfig")
	own := map[string]string{
		"authentication-kubeconfig": kubeconfig,
		"authorization-kubeconfig":  kubeconfig,
		"bind-address":              "127.0.0.1",
		"kubeconfig":                kubeconfig,
		"leader-elect":              "true",
	}
	return controlPlaneComponent(c, n, CompScheduler, "Kubernetes scheduler (eggo)", 10259, own, []serviceFile{
		kubeconfigFile(c, kubeconfig, localAPIServer(), "system:kube-scheduler", CertScheduler, ""),
	})
}

// controlPlaneComponent is a component that talks to its own master's
// apiserver and serves /healthz on a local port.
func controlPlaneComponent(c *Cluster, n Node, name, description string, port int, own map[string]string, files []serviceFile) componentSpec {
	exec := "/usr/local/bin/" + name
	return componentSpec{
		service: service{
			Component: name,
			UnitName:  name + ".service",
			Unit: renderUnit(unitOptions{description: description, exec: exec,
				args: flags(c, name, own), after: []string{CompAPIServer + ".service"}}),
			Files:         files,
			Health:        tlsHealthz(port) + " >/dev/null",
			HealthTimeout: defaultHealthTimeout,
			Version:       c.KubernetesVersion,
		},
		deps: []string{ServiceAddr(CompAPIServer, n.Name)},
		roll: &Roll{Group: "control-plane", Stage: stageControlPlane, Unit: n.Name, Batch: 1},
	}
}

// loadBalancer is haproxy in TCP mode in front of every apiserver.
func loadBalancer(c *Cluster, n Node) componentSpec {
	dir := path.Join(c.ConfigDir, CompLoadBalancer)
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
  bind :` + strconv.Itoa(APIServerPort) + `
  default_backend kube-apiservers
backend kube-apiservers
  balance roundrobin
  # An apiserver that is shutting down fails /readyz first (see
  # shutdown-delay-duration): it leaves the pool before it stops serving.
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 1s fall 2 rise 2 check-ssl verify none
`)
	var deps []string
	for _, m := range c.NodesWithRole("master") {
		fmt.Fprintf(&b, "  server %s %s check\n", m.Name, net.JoinHostPort(m.Address, strconv.Itoa(APIServerPort)))
		deps = append(deps, ServiceAddr(CompAPIServer, m.Name))
	}
	return componentSpec{
		service: service{
			Component: CompLoadBalancer,
			UnitName:  CompLoadBalancer + ".service",
			Unit: renderUnit(unitOptions{description: "Kubernetes API load balancer (eggo, haproxy)", exec: "/usr/sbin/haproxy",
				args: []string{"-Ws", "-f", cfgPath}, typ: "notify",
				extra: []string{"ExecStartPre=/usr/sbin/haproxy -c -q -f " + cfgPath}}),
			Files:         []serviceFile{{Path: cfgPath, Mode: "0644", Content: b.String()}},
			Health:        fmt.Sprintf("bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d'", APIServerPort),
			HealthTimeout: defaultHealthTimeout,
			// No Version: haproxy does not change with Kubernetes.
		},
		deps: deps,
		roll: &Roll{Group: "loadbalancers", Stage: stageLoadBalancers, Unit: n.Name, Batch: 1},
	}
}
