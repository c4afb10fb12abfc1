package pki

import (
	"crypto/x509"
	"fmt"
	"time"
)

// Verify checks that certPEM chains to the CA in caPEM and is valid at now.
// Any extended key usage is accepted; callers that care check Info.
func Verify(certPEM, caPEM string, now time.Time) error {
	cert, err := ParseCertificate(certPEM)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	ca, err := ParseCertificate(caPEM)
	if err != nil {
		return fmt.Errorf("verify certificate %q: CA: %w", cert.Subject.CommonName, err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	_, err = cert.Verify(x509.VerifyOptions{
		Roots:       roots,
		CurrentTime: now,
		KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
	})
	if err != nil {
		return fmt.Errorf("certificate %q does not verify against CA %q: %w",
			cert.Subject.CommonName, ca.Subject.CommonName, err)
	}
	return nil
}
