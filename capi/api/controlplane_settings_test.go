package api_test

import (
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
)

// spec.eggo.addons and spec.eggo.runtime: the server takes what eggo
// takes; an empty coreDNSUpstream is stored as one, apart from an unset
// one.
func (e *env) testControlPlaneAddonsAndRuntime(t *testing.T) {
	ctx := ctxFor(t)
	ns := e.api.Namespace(t, "cp-settings")
	up := func(s ...controlplanev1.DNSUpstream) *[]controlplanev1.DNSUpstream {
		l := append([]controlplanev1.DNSUpstream{}, s...) // never nil: a nil list is sent as null, which is unset
		return &l
	}
	type spec = controlplanev1.EggoSpec
	i32 := ptr.To[int32]
	good := []func(*spec){
		func(s *spec) { s.Addons.CoreDNSUpstream = up() },
		func(s *spec) {
			s.Addons = controlplanev1.AddonsSpec{CoreDNS: ptr.To(false), KubeProxy: ptr.To(true), CoreDNSReplicas: i32(100),
				CoreDNSUpstream: up("/etc/resolv.conf", "10.0.0.53", "10.0.0.53:5353", "fd00::53", "[fd00::53]:53")}
		},
		func(s *spec) {
			s.Runtime = controlplanev1.RuntimeSpec{RestrictOOMScoreAdj: ptr.To(true), CgroupRootPerNode: ptr.To(false),
				EvictionHard:       map[string]controlplanev1.EvictionThreshold{"memory.available": "100Mi", "nodefs.inodesFree": "5%", "pid.available": "2.5%"},
				ImageGCHighPercent: i32(100), ImageGCLowPercent: i32(99),
				RegistryMirrors: map[string]controlplanev1.RegistryMirrorList{"_default": {"http://10.0.0.5:5000"}, "registry.k8s.io": {"https://m.example/", "http://10.0.0.6"}, "10.0.0.7:5000": {"https://m.example"}}}
		},
		func(s *spec) { s.Runtime.ImageGCHighPercent = i32(90) },
		func(s *spec) { s.Runtime.ImageGCLowPercent = i32(1) },
	}
	for i, f := range good {
		cp := controlPlane(ns, fmt.Sprintf("good-%d", i), 1)
		f(&cp.Spec.Eggo)
		if err := e.c.Create(ctx, cp); err != nil {
			t.Errorf("good %d refused: %v", i, err)
		}
	}
	got := &controlplanev1.EggoControlPlane{}
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "good-0"}, got); err != nil || got.Spec.Eggo.Addons.CoreDNSUpstream == nil ||
		len(*got.Spec.Eggo.Addons.CoreDNSUpstream) != 0 {
		t.Errorf("an empty coreDNSUpstream read back as %v (%v): want an empty list, not unset", got.Spec.Eggo.Addons.CoreDNSUpstream, err)
	}
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "good-3"}, got); err != nil || got.Spec.Eggo.Addons.CoreDNSUpstream != nil {
		t.Errorf("an unset coreDNSUpstream read back as %v (%v)", got.Spec.Eggo.Addons.CoreDNSUpstream, err)
	}
}

// What eggo would refuse at its plan the server refuses, naming the field.
func (e *env) testControlPlaneAddonsAndRuntimeRefused(t *testing.T) {
	ctx := ctxFor(t)
	ns := e.api.Namespace(t, "cp-settings-refused")
	up := func(s ...controlplanev1.DNSUpstream) *[]controlplanev1.DNSUpstream { return &s }
	type spec = controlplanev1.EggoSpec
	i32 := ptr.To[int32]
	hostile := `${file("/etc/shadow")}`
	for i, c := range []struct {
		set  func(*spec)
		want string
	}{
		{func(s *spec) { s.Addons.CoreDNSReplicas = i32(0) }, "spec.eggo.addons.coreDNSReplicas"},
		{func(s *spec) { s.Addons.CoreDNSReplicas = i32(101) }, "spec.eggo.addons.coreDNSReplicas"},
		{func(s *spec) { s.Addons.CoreDNSUpstream = up(controlplanev1.DNSUpstream(hostile)) }, "a CoreDNS upstream is an IP address"},
		{func(s *spec) { s.Addons.CoreDNSUpstream = up("dns.example") }, "a CoreDNS upstream is an IP address"},
		{func(s *spec) { s.Addons.CoreDNSUpstream = up("10.0.0.53:0") }, "a CoreDNS upstream is an IP address"},
		{func(s *spec) { s.Addons.CoreDNSUpstream = up("10.0.0.53:65536") }, "a CoreDNS upstream is an IP address"},
		{func(s *spec) { s.Addons.CoreDNSUpstream = up("fd00::53:53") }, ""}, // an IPv6 address: valid
		{func(s *spec) { s.Addons.CoreDNSUpstream = up("/etc/hosts") }, "a CoreDNS upstream is an IP address"},
		{func(s *spec) {
			s.Addons.CoreDNSUpstream = up("1.1.1.1", "1.1.1.2", "1.1.1.3", "1.1.1.4", "1.1.1.5", "1.1.1.6", "1.1.1.7", "1.1.1.8",
				"1.1.1.9", "1.1.1.10", "1.1.1.11", "1.1.1.12", "1.1.1.13", "1.1.1.14", "1.1.1.15", "1.1.1.16")
		}, "spec.eggo.addons.coreDNSUpstream: Too many"},
		{func(s *spec) {
			s.Runtime.EvictionHard = map[string]controlplanev1.EvictionThreshold{"memory.free": "1Gi"}
		}, "the kubelet's eviction signals"},
		{func(s *spec) {
			s.Runtime.EvictionHard = map[string]controlplanev1.EvictionThreshold{"memory.available": controlplanev1.EvictionThreshold(hostile)}
		}, "spec.eggo.runtime.evictionHard.memory.available"},
		{func(s *spec) { s.Runtime.ImageGCHighPercent = i32(101) }, "spec.eggo.runtime.imageGCHighPercent"},
		{func(s *spec) { s.Runtime.ImageGCLowPercent = i32(0) }, "spec.eggo.runtime.imageGCLowPercent"},
		{func(s *spec) { s.Runtime.ImageGCHighPercent, s.Runtime.ImageGCLowPercent = i32(60), i32(60) }, "imageGCLowPercent must be below"},
		{func(s *spec) { s.Runtime.ImageGCHighPercent = i32(80) }, "imageGCLowPercent must be below"}, // the kubelet's low 80
		{func(s *spec) { s.Runtime.ImageGCLowPercent = i32(85) }, "imageGCLowPercent must be below"},  // the kubelet's high 85
		{func(s *spec) {
			s.Runtime.RegistryMirrors = map[string]controlplanev1.RegistryMirrorList{hostile: {"http://10.0.0.5:5000"}}
		}, "registryMirrors' keys are registry hosts"},
		{func(s *spec) {
			s.Runtime.RegistryMirrors = map[string]controlplanev1.RegistryMirrorList{"docker.io": {controlplanev1.RegistryMirror(hostile)}}
		}, "spec.eggo.runtime.registryMirrors.docker.io[0]"},
		{func(s *spec) {
			s.Runtime.RegistryMirrors = map[string]controlplanev1.RegistryMirrorList{"docker.io": {"https://user:pw@m.example"}}
		}, "spec.eggo.runtime.registryMirrors.docker.io[0]"},
		{func(s *spec) {
			s.Runtime.RegistryMirrors = map[string]controlplanev1.RegistryMirrorList{"docker.io": {}}
		}, "spec.eggo.runtime.registryMirrors.docker.io: Invalid value: 0"},
	} {
		cp := controlPlane(ns, fmt.Sprintf("bad-%d", i), 1)
		c.set(&cp.Spec.Eggo)
		err := e.c.Create(ctx, cp)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("case %d refused: %v", i, err)
		case c.want != "" && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("case %d: %v, want refused: %s", i, err, c.want)
		}
	}
}
