package etcdstate

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// The etcd client reports an unreachable or untrusted server only as a
// timeout; these bound the direct checks that find out why.
const (
	diagnoseDialTimeout = 2 * time.Second
	// alertWait is how long to wait for the server's verdict on our client
	// certificate: in TLS 1.3 it comes after the handshake, as an alert.
	alertWait = 300 * time.Millisecond
)

// explainConnectError turns a failed first request into a message that
// says what is wrong, checking each endpoint directly.
func (s *Store) explainConnectError(err error) error {
	for _, ep := range s.cfg.Endpoints {
		if why := s.diagnose(ep); why != nil {
			return fmt.Errorf("etcd backend: %s: %w", ep, why)
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("etcd backend: %s does not answer within %s: %w", strings.Join(s.cfg.Endpoints, ", "), s.cfg.DialTimeout, err)
	}
	return fmt.Errorf("etcd backend: reading %s: %w", s.Describe(), err)
}

// diagnose connects to one endpoint as the client would and returns what
// went wrong, or nil if it found nothing wrong.
func (s *Store) diagnose(endpoint string) error {
	secure, addr := splitEndpoint(endpoint)
	conn, err := net.DialTimeout("tcp", addr, diagnoseDialTimeout)
	if err != nil {
		return fmt.Errorf("cannot connect: %w", err)
	}
	defer conn.Close()
	if !secure {
		return speaksTLS(conn, addr)
	}
	tlsConfig, err := s.cfg.tlsConfig()
	if err != nil {
		return err
	}
	if tlsConfig == nil {
		tlsConfig = &tls.Config{}
	}
	tlsConfig.ServerName, _, _ = net.SplitHostPort(addr)
	tlsConn := tls.Client(conn, tlsConfig)
	tlsConn.SetDeadline(time.Now().Add(diagnoseDialTimeout))
	if err := tlsConn.Handshake(); err != nil {
		return s.explainHandshake(err)
	}
	tlsConn.SetDeadline(time.Now().Add(alertWait))
	if _, err := tlsConn.Read(make([]byte, 1)); err != nil {
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			return nil // no alert: the server accepted us
		}
		return s.explainHandshake(err)
	}
	return nil
}

// explainHandshake names the file behind a TLS failure.
func (s *Store) explainHandshake(err error) error {
	var unknownCA x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var hostname x509.HostnameError
	switch {
	case errors.As(err, &unknownCA) && s.cfg.CAFile != "":
		return fmt.Errorf("the server's certificate is not signed by the CA in %s (%v)", s.cfg.CAFile, err)
	case errors.As(err, &unknownCA):
		return fmt.Errorf("the server's certificate is not signed by a CA this system trusts: name its CA file in the backend (%v)", err)
	case errors.As(err, &hostname):
		return fmt.Errorf("the server's certificate does not name this address (%v)", err)
	case errors.As(err, &invalid):
		return fmt.Errorf("the server's certificate is not valid (%v)", err)
	case strings.Contains(err.Error(), "certificate required"):
		return fmt.Errorf("the server requires a client certificate: name a cert file and a key file in the backend (%v)", err)
	case s.cfg.CertFile != "" && strings.Contains(err.Error(), "remote error"):
		return fmt.Errorf("the server refused the client certificate %s (%v)", s.cfg.CertFile, err)
	case strings.Contains(err.Error(), "remote error"):
		return fmt.Errorf("the server refused this client, which has no client certificate (%v)", err)
	}
	return fmt.Errorf("TLS handshake: %w", err)
}

// splitEndpoint returns whether endpoint uses TLS and its host:port.
func splitEndpoint(endpoint string) (secure bool, addr string) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return false, endpoint // host:port without a scheme
	}
	return u.Scheme == "https" || u.Scheme == "unixs", u.Host
}

// speaksTLS reports a server that answers a TLS handshake on an endpoint
// configured as plain http. The certificate is not checked: this only asks
// which protocol the server speaks, and nothing is sent after the hello.
func speaksTLS(conn net.Conn, addr string) error {
	probe := tls.Client(conn, &tls.Config{InsecureSkipVerify: true})
	probe.SetDeadline(time.Now().Add(diagnoseDialTimeout))
	err := probe.Handshake()
	if err == nil || strings.Contains(err.Error(), "remote error: tls") {
		return fmt.Errorf("the server at %s speaks TLS: write the endpoint as https://%s", addr, addr)
	}
	return nil
}
