package pki

import (
	"slices"
	"strings"
	"testing"
)

func TestServiceIP(t *testing.T) {
	tests := []struct{ cidr, want, err string }{
		{cidr: "10.32.0.0/16", want: "10.32.0.1"},
		{cidr: "10.96.0.0/12", want: "10.96.0.1"},
		{cidr: "10.32.7.9/16", want: "10.32.0.1"}, // host bits ignored
		{cidr: "fd00:10:96::/108", want: "fd00:10:96::1"},
		{cidr: "10.0.0.0/31", want: "10.0.0.1"},
		{cidr: "10.0.0.0/32", err: `"10.0.0.0/32" has no room`},
		{cidr: "10.32.0.0", err: `service_cidr "10.32.0.0" is not a CIDR`},
		{cidr: "10.32.0.0/33", err: "is not a CIDR"},
		{cidr: "", err: `service_cidr "" is not a CIDR`},
	}
	for _, tt := range tests {
		got, err := ServiceIP(tt.cidr)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ServiceIP(%q) error = %v, want %q", tt.cidr, err, tt.err)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("ServiceIP(%q) = %v, %v; want %s", tt.cidr, got, err, tt.want)
		}
	}
}

func TestAPIServerSpec(t *testing.T) {
	masters := []Host{{"master-1", "10.77.0.12"}, {"master-0", "10.77.0.11"}, {"master-2", "m2.example"}}
	spec, err := APIServerSpec("10.32.0.0/16", "cluster.local", masters, "api.example:6443",
		[]string{"10.77.0.10", "lb.example", "10.77.0.11", "API.example"}, year)
	if err != nil {
		t.Fatal(err)
	}
	wantDNS := []string{"api.example", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc.cluster.local", "lb.example", "localhost", "m2.example", "master-0", "master-1", "master-2"}
	wantIPs := []string{"10.32.0.1", "10.77.0.10", "10.77.0.11", "10.77.0.12", "127.0.0.1"}
	if !slices.Equal(spec.DNSNames, wantDNS) {
		t.Errorf("DNSNames\n got %v\nwant %v", spec.DNSNames, wantDNS)
	}
	if !slices.Equal(spec.IPs, wantIPs) {
		t.Errorf("IPs\n got %v\nwant %v", spec.IPs, wantIPs)
	}
	if spec.CommonName != "kube-apiserver" || !spec.Server || spec.Client {
		t.Errorf("spec %+v", spec)
	}

	// The issued certificate carries exactly those names.
	ca := mustCA(t, "kubernetes")
	info := mustInspect(t, mustIssue(t, ca, spec).CertPEM)
	if !slices.Equal(info.DNSNames, wantDNS) || !slices.Equal(info.IPs, wantIPs) {
		t.Errorf("certificate SANs %v %v", info.DNSNames, info.IPs)
	}

	// Default domain, IPv6 endpoint with port.
	spec, err = APIServerSpec("10.96.0.0/12", "", nil, "[fd00::10]:6443", nil, year)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(spec.DNSNames, "kubernetes.default.svc.cluster.local") ||
		!slices.Equal(spec.IPs, []string{"10.96.0.1", "127.0.0.1", "fd00::10"}) {
		t.Errorf("defaults: %v %v", spec.DNSNames, spec.IPs)
	}
}

func TestAPIServerSpecErrors(t *testing.T) {
	tests := []struct {
		name, cidr, domain string
		masters            []Host
		extra              []string
		want               string
	}{
		{"bad CIDR", "10.32.0.0/40", "", nil, nil, `apiserver certificate: service_cidr "10.32.0.0/40"`},
		{"bad domain", "10.32.0.0/16", "bad domain", nil, nil, `DNS name "kubernetes.default.svc.bad domain"`},
		{"bad extra SAN", "10.32.0.0/16", "", nil, []string{"-x.example"}, `"-x.example"`},
		{"bad master name", "10.32.0.0/16", "", []Host{{"Master 0", "10.0.0.1"}}, nil, `"master 0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := APIServerSpec(tt.cidr, tt.domain, tt.masters, "", tt.extra, year)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestComponentSpecs(t *testing.T) {
	node := Host{Name: "w0", Address: "10.77.0.21"}
	kubelet, err := KubeletSpec(node, year)
	if err != nil {
		t.Fatal(err)
	}
	etcdServer, err := EtcdServerSpec(Host{"master-0", "10.77.0.11"}, year)
	if err != nil {
		t.Fatal(err)
	}
	etcdPeer, err := EtcdPeerSpec(Host{"master-0", "10.77.0.11"}, year)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec           CertSpec
		cn             string
		orgs           []string
		server, client bool
		dns, ips       []string
	}{
		{spec: kubelet, cn: "system:node:w0", orgs: []string{"system:nodes"}, server: true, client: true,
			dns: []string{"w0"}, ips: []string{"10.77.0.21"}},
		{spec: etcdServer, cn: "master-0", server: true, client: true,
			dns: []string{"localhost", "master-0"}, ips: []string{"10.77.0.11", "127.0.0.1", "::1"}},
		{spec: etcdPeer, cn: "master-0", server: true, client: true,
			dns: []string{"localhost", "master-0"}, ips: []string{"10.77.0.11", "127.0.0.1", "::1"}},
		{spec: AdminSpec(year), cn: "kubernetes-admin", orgs: []string{"system:masters"}, client: true},
		{spec: APIServerKubeletClientSpec(year), cn: "kube-apiserver-kubelet-client", orgs: []string{"system:masters"}, client: true},
		{spec: APIServerEtcdClientSpec(year), cn: "kube-apiserver-etcd-client", client: true},
		{spec: FrontProxyClientSpec(year), cn: "front-proxy-client", client: true},
		{spec: ControllerManagerSpec(year), cn: "system:kube-controller-manager", client: true},
		{spec: SchedulerSpec(year), cn: "system:kube-scheduler", client: true},
		{spec: KubeProxySpec(year), cn: "system:kube-proxy", client: true},
	}
	ca := mustCA(t, "kubernetes")
	for _, tt := range tests {
		t.Run(tt.cn, func(t *testing.T) {
			info := mustInspect(t, mustIssue(t, ca, tt.spec).CertPEM)
			if info.CommonName != tt.cn || !slices.Equal(info.Organization, tt.orgs) ||
				info.Server != tt.server || info.Client != tt.client ||
				!slices.Equal(info.DNSNames, tt.dns) || !slices.Equal(info.IPs, tt.ips) {
				t.Errorf("got %+v", info)
			}
		})
	}
	if _, err := KubeletSpec(Host{Name: "", Address: "10.0.0.1"}, year); err == nil {
		t.Error("kubelet with empty node name accepted")
	}
}
