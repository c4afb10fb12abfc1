package state

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Encode is Marshal for tests, whose states are always encodable: it
// panics on an error.
func Encode(s *State) []byte {
	b, err := Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ (and the fuzz seeds made from them)")

// sampleState is a small cluster-shaped state that exercises every part of
// the encoding: unsorted resources and lists, a nil attribute map, nested
// values, characters JSON might escape, a pending resource and outputs.
func sampleState() *State {
	return &State{
		FormatVersion: FormatVersion,
		Serial:        7,
		Lineage:       "6f1c2e0a-8d3b-4c5e-9f7a-1b2c3d4e5f60",
		EggoVersion:   "0.1.0",
		Resources: []Resource{
			{
				Address: "service.kubelet[\"w0\"]",
				Kind:    "service",
				Node:    "w0",
				Attributes: map[string]any{
					"unit":    "kubelet.service",
					"args":    []any{"--node-ip=10.77.0.21", "--v=2"},
					"enabled": true,
				},
				Dependencies: []string{"host.w0", "cert.kubelet[\"w0\"]"},
			},
			{
				Address: "host.master-0",
				Kind:    "host",
				Node:    "master-0",
				Attributes: map[string]any{
					"address": "10.77.0.11",
					"port":    float64(22),
					"facts": map[string]any{
						"os":      "debian",
						"cpus":    float64(2),
						"mem_gib": 3.5,
						"tags":    []any{},
						"nothing": nil,
					},
					"motd": "<b>eggo & co</b> — ünïcödé ✓",
				},
			},
			{
				Address:      "pki.cluster_ca",
				Kind:         "pki",
				Attributes:   map[string]any{"cert_pem": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", "key_pem": "not-a-real-key"},
				Sensitive:    []string{"key_pem"},
				Dependencies: nil,
			},
			{
				Address:      "host.w0",
				Kind:         "host",
				Node:         "w0",
				Status:       StatusPending,
				Dependencies: []string{},
			},
			{
				Address:      "cert.kubelet[\"w0\"]",
				Kind:         "cert",
				Node:         "w0",
				Attributes:   map[string]any{"not_after": "2027-11-21T16:49:16Z", "sans": []any{"w0", "10.77.0.21"}},
				Dependencies: []string{"pki.cluster_ca", "host.w0"},
			},
		},
		Outputs: map[string]any{"api_endpoint": "https://10.77.0.10:6443", "nodes": float64(2)},
	}
}

// checkGolden compares got with testdata/name, or rewrites it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./state/ -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("encoding differs from %s (run with -update if the change is intended)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// writeFile writes content to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
