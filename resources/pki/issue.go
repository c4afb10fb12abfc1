package pki

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"time"
)

// Issue creates a fresh key and a leaf certificate for spec, signed by ca,
// valid from now (backdated by five minutes for clock skew) for
// spec.Validity. The end is clamped to the CA's own expiry: a leaf cannot
// outlive its issuer, and the clamp makes NeedsRenewal report the CA's
// approaching end through its leaves.
func Issue(ca KeyPair, spec CertSpec, now time.Time) (KeyPair, error) {
	spec, err := spec.Normalize()
	if err != nil {
		return KeyPair{}, err
	}
	fail := func(err error) (KeyPair, error) {
		return KeyPair{}, fmt.Errorf("issue certificate %q: %w", spec.CommonName, err)
	}
	caCert, caKey, err := parseCA(ca)
	if err != nil {
		return fail(err)
	}
	notBefore, notAfter := window(now, spec.Validity)
	if notAfter.After(caCert.NotAfter) {
		notAfter = caCert.NotAfter
	}
	if !notAfter.After(now) {
		return fail(fmt.Errorf("CA %q expired on %s", caCert.Subject.CommonName, caCert.NotAfter.Format(time.DateOnly)))
	}
	key, err := newLeafKey()
	if err != nil {
		return fail(err)
	}
	serial, err := randomSerial()
	if err != nil {
		return fail(err)
	}
	ski, err := subjectKeyID(key.Public())
	if err != nil {
		return fail(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: spec.CommonName, Organization: spec.Organization},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature, // ECDSA: no key encipherment
		ExtKeyUsage:           extKeyUsages(spec),
		BasicConstraintsValid: true,
		DNSNames:              spec.DNSNames,
		IPAddresses:           parseIPs(spec.IPs),
		SubjectKeyId:          ski,
		AuthorityKeyId:        caCert.SubjectKeyId,
	}
	der, err := x509.CreateCertificate(randReader, tmpl, caCert, key.Public(), caKey)
	if err != nil {
		return fail(fmt.Errorf("sign: %w", err))
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return fail(err)
	}
	return KeyPair{CertPEM: encodeCert(der), KeyPEM: keyPEM}, nil
}

func extKeyUsages(spec CertSpec) []x509.ExtKeyUsage {
	var u []x509.ExtKeyUsage
	if spec.Server {
		u = append(u, x509.ExtKeyUsageServerAuth)
	}
	if spec.Client {
		u = append(u, x509.ExtKeyUsageClientAuth)
	}
	return u
}

// parseIPs converts already-normalized addresses.
func parseIPs(ips []string) []net.IP {
	out := make([]net.IP, 0, len(ips))
	for _, s := range ips {
		out = append(out, net.ParseIP(s))
	}
	return out
}
