package kubestate

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// StaleError says a write was refused because the state is no longer the
// version the writer read: another run wrote (or deleted) it since.
type StaleError struct {
	Where    string // Store.Describe()
	Expected string // the resourceVersion read; "": the writer saw no state
	Actual   string // the head's resourceVersion now; "": there is no state
	Writer   string // who wrote the current version, as it recorded itself
	At       string // when (RFC 3339), as it recorded it
}

func (e *StaleError) Error() string {
	expected := "expected resourceVersion " + e.Expected
	if e.Expected == "" {
		expected = "expected no state yet"
	}
	if e.Actual == "" {
		return fmt.Sprintf("%s: another run deleted the state (%s); nothing was written", e.Where, expected)
	}
	by := ""
	if e.Writer != "" {
		by = " by " + e.Writer
		if e.At != "" {
			by += " at " + e.At
		}
	}
	return fmt.Sprintf("%s: another run wrote the state (resourceVersion %s%s; %s); nothing was written",
		e.Where, e.Actual, by, expected)
}

// notFoundError says there is no state yet.
type notFoundError struct{ where string }

func (e *notFoundError) Error() string { return "no state at " + e.where }

func (e *notFoundError) Is(target error) bool { return target == fs.ErrNotExist }

// explain turns an API error into what the user can act on: which server,
// which credentials, which permission or namespace is missing.
func (s *Store) explain(verb, resource string, err error) error {
	ns, server, who := s.src.namespace, s.src.rest.Host, s.src.what
	var status apierrors.APIStatus
	var unknownCA x509.UnknownAuthorityError
	var urlErr *url.Error
	var netErr net.Error
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("kubernetes backend: %s %s in namespace %s is forbidden to the user of %s: "+
			"it needs get, list, create, update and delete on secrets and leases there (%v)", verb, resource, ns, who, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("kubernetes backend: %s does not accept the credentials of %s (%v)", server, who, err)
	case errors.As(err, &status) && apierrors.IsNotFound(err) && status.Status().Details != nil &&
		status.Status().Details.Kind == "namespaces":
		return fmt.Errorf("kubernetes backend: namespace %s does not exist on %s: create it (kubectl create namespace %s) or name another in the backend block",
			ns, server, ns)
	case errors.As(err, &unknownCA):
		return fmt.Errorf("kubernetes backend: %s presents a certificate not signed by the CA of %s (%v)", server, who, err)
	case errors.As(err, &urlErr) || errors.As(err, &netErr):
		return fmt.Errorf("kubernetes backend: cannot reach %s (from %s): %w", server, who, err)
	}
	return fmt.Errorf("kubernetes backend: %s %s: %w", verb, s.Describe(), err)
}

// isGoneOrMoved: the object is not there, or not at the version named.
func isGoneOrMoved(err error) bool { return apierrors.IsNotFound(err) || apierrors.IsConflict(err) }
