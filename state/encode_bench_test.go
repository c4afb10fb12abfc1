package state

import (
	"fmt"
	"strings"
	"testing"
)

// clusterState is a state shaped like a created cluster of n nodes: seven
// resources a node, recording what every node records alike (unit files,
// a cleanup script, the bundle's file list, the SSH connection) beside its
// own values (addresses, a certificate, a kubeconfig, a sealed-to-be key).
// At 1,000 nodes it is about as large as `make bench-scale`'s state.
func clusterState(n int) *State {
	s := New()
	unit := "[Unit]\nDescription=kubelet\nAfter=containerd.service\n\n[Service]\nExecStart=/usr/local/bin/kubelet --config=/etc/kubernetes/kubelet.yaml\nRestart=always\n" + strings.Repeat("# padding line of a long unit file\n", 6)
	containerd := "[Unit]\nDescription=containerd\n\n[Service]\nExecStart=/usr/local/bin/containerd\nDelegate=yes\nKillMode=process\n" + strings.Repeat("# more\n", 10)
	cleanup := "#!/bin/sh\nset -eu\n" + strings.Repeat("rm -rf /var/lib/eggo/old-bundle-dir-that-is-no-longer-needed\n", 8)
	var files []any
	for i := range 40 {
		files = append(files, fmt.Sprintf("/usr/local/bin/tool-%02d", i))
	}
	health := map[string]any{"command": []any{"/usr/local/bin/kubectl", "get", "--raw", "/healthz"}, "interval": "10s", "retries": float64(5)}
	s.Resources = make([]Resource, 0, 7*n)
	for i := range n {
		node := fmt.Sprintf("w%04d", i)
		ip := fmt.Sprintf("10.77.%d.%d", i/250, i%250+2)
		conn := map[string]any{"type": "ssh", "user": "root", "port": float64(22), "known_hosts_file": "/etc/eggo/known_hosts", "key_file": "/etc/eggo/id_ed25519"}
		deps := []string{"host." + node}
		add := func(kind, name string, attrs map[string]any, sensitive ...string) {
			s.Resources = append(s.Resources, Resource{Address: kind + "." + name + "[\"" + node + "\"]", Kind: kind, Node: node,
				Attributes: attrs, Sensitive: sensitive, Dependencies: deps})
		}
		s.Resources = append(s.Resources, Resource{Address: "host." + node, Kind: "host", Node: node, Attributes: map[string]any{
			"address": ip, "connection": conn,
			"facts": map[string]any{"arch": "amd64", "cpus": float64(4), "mem_gib": 15.5, "os": "debian", "addrs": []any{ip, "fd00::" + node}},
		}})
		add("service", "kubelet", map[string]any{"unit": unit, "health_check": health, "enabled": true, "connection": conn,
			"args": []any{"--node-ip=" + ip, "--hostname-override=" + node, "--v=2"}, "file_modes": map[string]any{"/etc/kubernetes/kubelet.yaml": "0644", "/var/lib/kubelet/pki": "0700"}})
		add("service", "containerd", map[string]any{"unit": containerd, "enabled": true, "connection": conn})
		add("cert", "kubelet", map[string]any{
			"cert_pem":  "-----BEGIN CERTIFICATE-----\n" + strings.Repeat(fmt.Sprintf("%064x\n", i*7919), 12) + "-----END CERTIFICATE-----\n",
			"key_pem":   fmt.Sprintf("-----BEGIN EC PRIVATE KEY-----\n%0220d\n-----END EC PRIVATE KEY-----\n", i),
			"sans":      []any{node, ip},
			"not_after": "2027-11-21T16:49:16Z",
		}, "key_pem")
		add("bundle", "node", map[string]any{"files": files, "digest": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "connection": conn})
		add("file", "cleanup", map[string]any{"script": cleanup, "mode": "0755", "connection": conn})
		add("kubeconfig", "kubelet", map[string]any{
			"content": "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://10.77.0.10:6443\n  name: eggo\nusers:\n- name: system:node:" + node + "\n  user:\n    client-certificate-data: " + strings.Repeat(fmt.Sprintf("%064x", i*104729), 40) + "\n",
			"server":  "https://10.77.0.10:6443",
		})
	}
	return s
}

// BenchmarkEncodeCluster1k is one write of a 1,000-node cluster's state,
// as `eggo apply` makes after every resource that finishes.
func BenchmarkEncodeCluster1k(b *testing.B) {
	s := clusterState(1000)
	b.SetBytes(int64(len(Encode(s))))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Encode(s)
	}
}
