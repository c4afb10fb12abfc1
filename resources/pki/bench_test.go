package pki

import (
	"testing"
)

// BenchmarkIssue issues one ECDSA leaf per op (key generation included), the
// unit cost of a cluster's certificates.
func BenchmarkIssue(b *testing.B) {
	ca := mustCA(b, "kubernetes")
	spec, err := KubeletSpec(Host{Name: "w0", Address: "10.0.0.21"}, year)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Issue(ca, spec, t0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIssue1000 issues 1000 leaves per op: a 1000-node cluster's
// kubelet certificates; ms/op is reported directly.
func BenchmarkIssue1000(b *testing.B) {
	ca := mustCA(b, "kubernetes")
	spec, err := KubeletSpec(Host{Name: "w0", Address: "10.0.0.21"}, year)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for range 1000 {
			if _, err := Issue(ca, spec, t0); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// BenchmarkNeedsRenewal is the per-certificate cost of a plan.
func BenchmarkNeedsRenewal(b *testing.B) {
	ca := mustCA(b, "kubernetes")
	spec, _ := KubeletSpec(Host{Name: "w0", Address: "10.0.0.21"}, year)
	kp := mustIssue(b, ca, spec)
	for b.Loop() {
		if renew, why := NeedsRenewal(kp.CertPEM, spec, ca.CertPEM, 0, t0); renew {
			b.Fatal(why)
		}
	}
}
