package pki

import (
	"strings"
	"testing"
	"time"
)

func TestNeedsRenewal(t *testing.T) {
	ca := mustCA(t, "kubernetes")
	otherCA := mustCA(t, "kubernetes") // same name, new key: a rotated CA
	spec := CertSpec{CommonName: "kube-apiserver", Server: true, Validity: year,
		DNSNames: []string{"kubernetes", "old.example"}, IPs: []string{"10.32.0.1"}}
	cert := mustIssue(t, ca, spec).CertPEM
	expiry := t0.Add(year)

	with := func(f func(*CertSpec)) CertSpec {
		s := spec
		s.DNSNames = append([]string(nil), spec.DNSNames...)
		s.IPs = append([]string(nil), spec.IPs...)
		f(&s)
		return s
	}
	tests := []struct {
		name   string
		cert   string
		spec   CertSpec
		ca     string
		now    time.Time
		want   bool
		reason string // exact when want is true
	}{
		{name: "unchanged", cert: cert, spec: spec, ca: ca.CertPEM, now: t0},
		{name: "unchanged but reordered, upper-cased and duplicated", cert: cert, ca: ca.CertPEM, now: t0,
			spec: with(func(s *CertSpec) {
				s.DNSNames = []string{"OLD.example", "kubernetes", "kubernetes"}
				s.IPs = []string{"10.32.0.1", "10.32.0.1"}
			})},
		{name: "validity changed alone does not churn", cert: cert, ca: ca.CertPEM, now: t0,
			spec: with(func(s *CertSpec) { s.Validity = 2 * year })},
		{name: "spec without validity compares names only", cert: cert, ca: ca.CertPEM, now: t0,
			spec: with(func(s *CertSpec) { s.Validity = 0 })},
		{name: "bad spec", cert: cert, ca: ca.CertPEM, now: t0, want: true,
			spec:   with(func(s *CertSpec) { s.IPs = []string{"10.0.0.300"} }),
			reason: `certificate "kube-apiserver": IP SAN "10.0.0.300" is not an IP address`},
		{name: "just outside renew_before", cert: cert, spec: spec, ca: ca.CertPEM,
			now: expiry.Add(-720*time.Hour - time.Second)},
		{name: "within renew_before", cert: cert, spec: spec, ca: ca.CertPEM, now: expiry.Add(-719 * time.Hour), want: true,
			reason: "expires " + expiry.Format(time.DateOnly) + ", within renew_before 720h"},
		{name: "expired", cert: cert, spec: spec, ca: ca.CertPEM, now: expiry.Add(time.Hour), want: true,
			reason: "expired " + expiry.Format(time.DateOnly)},
		{name: "SAN added and removed", cert: cert, ca: ca.CertPEM, now: t0, want: true,
			spec:   with(func(s *CertSpec) { s.DNSNames = []string{"kubernetes"}; s.IPs = append(s.IPs, "10.0.0.5") }),
			reason: "SANs changed: + 10.0.0.5, - old.example"},
		{name: "other CA", cert: cert, spec: spec, ca: otherCA.CertPEM, now: t0, want: true, reason: "issuer changed"},
		{name: "CN changed", cert: cert, ca: ca.CertPEM, now: t0, want: true,
			spec:   with(func(s *CertSpec) { s.CommonName = "apiserver" }),
			reason: `common name changed: "kube-apiserver" -> "apiserver"`},
		{name: "organization changed", cert: cert, ca: ca.CertPEM, now: t0, want: true,
			spec:   with(func(s *CertSpec) { s.Organization = []string{"system:masters"} }),
			reason: "organization changed: [] -> [system:masters]"},
		{name: "usage changed", cert: cert, ca: ca.CertPEM, now: t0, want: true,
			spec:   with(func(s *CertSpec) { s.Client = true }),
			reason: "usages changed: server -> server+client"},
		{name: "several reasons at once", cert: cert, ca: otherCA.CertPEM, now: expiry.Add(-time.Hour), want: true,
			spec:   with(func(s *CertSpec) { s.DNSNames = append(s.DNSNames, "new.example") }),
			reason: "issuer changed; expires " + expiry.Format(time.DateOnly) + ", within renew_before 720h; SANs changed: + new.example"},
		{name: "unreadable certificate", cert: "not a PEM", spec: spec, ca: ca.CertPEM, now: t0, want: true,
			reason: "certificate unreadable: no CERTIFICATE block found in PEM"},
		{name: "unreadable CA", cert: cert, spec: spec, ca: "", now: t0, want: true,
			reason: "CA unreadable: certificate PEM is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := NeedsRenewal(tt.cert, tt.spec, tt.ca, 720*time.Hour, tt.now)
			if got != tt.want {
				t.Fatalf("NeedsRenewal = %v (%q), want %v", got, reason, tt.want)
			}
			if tt.want && reason != tt.reason {
				t.Errorf("reason\n got %q\nwant %q", reason, tt.reason)
			}
			if !tt.want && reason != "" {
				t.Errorf("reason %q with no renewal", reason)
			}
		})
	}
}

func TestNeedsRenewalAfterReissue(t *testing.T) {
	// The loop a resource runs: renew, then the new certificate is stable.
	ca := mustCA(t, "kubernetes")
	spec, err := KubeletSpec(Host{Name: "w0", Address: "10.0.0.21"}, year)
	if err != nil {
		t.Fatal(err)
	}
	old := mustIssue(t, ca, spec)
	spec.AddSANs("w0.example")
	if renew, _ := NeedsRenewal(old.CertPEM, spec, ca.CertPEM, 0, t0); !renew {
		t.Fatal("SAN added but no renewal")
	}
	fresh := mustIssue(t, ca, spec)
	if renew, why := NeedsRenewal(fresh.CertPEM, spec, ca.CertPEM, 0, t0); renew {
		t.Fatalf("reissued certificate still needs renewal: %s", why)
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		720 * time.Hour:                  "720h",
		90 * time.Minute:                 "1h30m",
		30 * time.Second:                 "30s",
		time.Hour + 30*time.Second:       "1h0m30s",
		0:                                "0s",
		24*time.Hour + 5*time.Minute + 0: "24h5m",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
	if strings.Contains(FormatDuration(720*time.Hour), "0m") {
		t.Error("zero minutes shown")
	}
}
