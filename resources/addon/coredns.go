package addon

import (
	"fmt"
	"strings"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

// CoreDNSImage is the image the bundle ships as coredns.tar
// (internal/bundle/scripts/coredns.sh builds it from the release its
// module pins); the add-on's pods run it with imagePullPolicy: Never.
const CoreDNSImage = "registry.k8s.io/coredns/coredns:v1.11.3"

const coreDNSAddon = "coredns"

// coreDNSSettings are what the CoreDNS manifest is rendered from; they are
// the add-on's coredns attribute, so a change to any re-applies it.
type coreDNSSettings struct {
	Image     string
	Replicas  int
	DNSIP     string
	DNSDomain string
	Upstream  []string
}

func (s coreDNSSettings) attrs() map[string]any {
	up := make([]any, len(s.Upstream))
	for i, u := range s.Upstream {
		up[i] = u
	}
	return map[string]any{"image": s.Image, "replicas": float64(s.Replicas), "dns_ip": s.DNSIP, "dns_domain": s.DNSDomain, "upstream": up}
}

func coreDNSSettingsFromAttrs(m map[string]any) coreDNSSettings {
	return coreDNSSettings{
		Image: resources.AttrString(m["image"]), Replicas: resources.AttrInt(m["replicas"]), DNSIP: resources.AttrString(m["dns_ip"]),
		DNSDomain: resources.AttrString(m["dns_domain"]), Upstream: resources.StringList(m["upstream"]),
	}
}

// coreDNSDesired is addon.coredns. The bundle, when the cluster names one,
// must carry the image for every worker's arch: without it the pods could
// never start (no registry is reachable).
func coreDNSDesired(c *resources.Cluster, workers []resources.Node) (resources.Desired, error) {
	if len(workers) == 0 {
		return resources.Desired{}, fmt.Errorf("%s: the coredns add-on needs a worker node to run on, and cluster %q has none", c.Source, c.Name)
	}
	if c.Packages != "" {
		for _, w := range workers {
			if p, why := resources.BundleLacks(c, w, resources.CoreDNSArchive); why != "" {
				return resources.Desired{}, fmt.Errorf("%s: the coredns add-on needs the image %s from the package bundle for worker %q, but %s (%s; build it with make bundle, or set addons { coredns = false })",
					c.Source, CoreDNSImage, w.Name, why, p)
			}
		}
	}
	dnsIP, err := resources.ClusterDNSIP(c.Network.ServiceCIDR)
	if err != nil {
		return resources.Desired{}, fmt.Errorf("%s: the coredns add-on's address: %w", c.Source, err)
	}
	s := coreDNSSettings{
		Image:     CoreDNSImage,
		Replicas:  max(c.Addons.CoreDNSReplicas, 1),
		DNSIP:     dnsIP,
		DNSDomain: resources.AttrOr(c.Network.DNSDomain, pki.DefaultDNSDomain),
		Upstream:  c.Addons.CoreDNSUpstream,
	}
	return resources.Desired{
		Addr:   resources.AddonAddr(coreDNSAddon),
		Kind:   "addon",
		Source: c.Source,
		Attrs:  resources.Attrs{addonSHA256: resources.SHA256Hex(renderCoreDNS(s)), addonCoreDNS: s.attrs()},
	}, nil
}

// renderCoreDNS is the CoreDNS add-on's manifest: upstream's (kubeadm's)
// objects, with the image from the bundle and never pulled. The pod runs
// CoreDNS as root with every capability dropped but NET_BIND_SERVICE, for
// port 53; a checksum of the Corefile in the pod template rolls the pods
// when it changes.
func renderCoreDNS(s coreDNSSettings) string {
	corefile := renderCorefile(s)
	var indented strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(corefile, "\n"), "\n") {
		indented.WriteString("    " + line + "\n")
	}
	return fmt.Sprintf(`apiVersion: v1
kind: ServiceAccount
metadata:
  name: coredns
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:coredns
  labels:
    kubernetes.io/bootstrapping: rbac-defaults
rules:
- apiGroups: [""]
  resources: [endpoints, services, pods, namespaces]
  verbs: [list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:coredns
  labels:
    kubernetes.io/bootstrapping: rbac-defaults
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:coredns
subjects:
- kind: ServiceAccount
  name: coredns
  namespace: kube-system
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns
  namespace: kube-system
data:
  Corefile: |
%[1]s---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: coredns
  namespace: kube-system
  labels:
    k8s-app: kube-dns
spec:
  replicas: %[2]d
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 1
  selector:
    matchLabels:
      k8s-app: kube-dns
  template:
    metadata:
      labels:
        k8s-app: kube-dns
      annotations:
        eggo.io/corefile-sha256: %[3]s
    spec:
      priorityClassName: system-cluster-critical
      serviceAccountName: coredns
      tolerations:
      - key: CriticalAddonsOnly
        operator: Exists
      - key: node-role.kubernetes.io/control-plane
        effect: NoSchedule
      nodeSelector:
        kubernetes.io/os: linux
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              labelSelector:
                matchLabels:
                  k8s-app: kube-dns
              topologyKey: kubernetes.io/hostname
      containers:
      - name: coredns
        image: %[4]s
        imagePullPolicy: Never
        args: ["-conf", "/etc/coredns/Corefile"]
        resources:
          limits:
            memory: 170Mi
          requests:
            cpu: 100m
            memory: 70Mi
        volumeMounts:
        - name: config-volume
          mountPath: /etc/coredns
          readOnly: true
        ports:
        - {name: dns, containerPort: 53, protocol: UDP}
        - {name: dns-tcp, containerPort: 53, protocol: TCP}
        - {name: metrics, containerPort: 9153, protocol: TCP}
        securityContext:
          runAsUser: 0
          allowPrivilegeEscalation: false
          capabilities:
            add: [NET_BIND_SERVICE]
            drop: [ALL]
          readOnlyRootFilesystem: true
        livenessProbe:
          httpGet: {path: /health, port: 8080, scheme: HTTP}
          initialDelaySeconds: 60
          timeoutSeconds: 5
          successThreshold: 1
          failureThreshold: 5
        readinessProbe:
          httpGet: {path: /ready, port: 8181, scheme: HTTP}
      dnsPolicy: Default
      volumes:
      - name: config-volume
        configMap:
          name: coredns
          items:
          - {key: Corefile, path: Corefile}
---
apiVersion: v1
kind: Service
metadata:
  name: kube-dns
  namespace: kube-system
  labels:
    k8s-app: kube-dns
    kubernetes.io/cluster-service: "true"
    kubernetes.io/name: CoreDNS
  annotations:
    prometheus.io/port: "9153"
    prometheus.io/scrape: "true"
spec:
  selector:
    k8s-app: kube-dns
  clusterIP: %[5]s
  ports:
  - {name: dns, port: 53, protocol: UDP}
  - {name: dns-tcp, port: 53, protocol: TCP}
  - {name: metrics, port: 9153, protocol: TCP}
`, indented.String(), max(s.Replicas, 1), resources.SHA256Hex(corefile), s.Image, s.DNSIP)
}

// renderCorefile is upstream's Kubernetes Corefile for the cluster's
// domain. Without upstream resolvers there is no forward block: CoreDNS
// refuses to start forwarding to a resolv.conf without nameservers, and
// answers the cluster's names alone.
func renderCorefile(s coreDNSSettings) string {
	forward := ""
	if len(s.Upstream) > 0 {
		forward = "    forward . " + strings.Join(s.Upstream, " ") + " {\n       max_concurrent 1000\n    }\n"
	}
	return `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes ` + s.DNSDomain + ` in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
` + forward + `    cache 30
    loop
    reload
    loadbalance
}
`
}
