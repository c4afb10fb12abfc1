package etcdstate

import (
	"fmt"
	"strings"
)

func (s *Store) explainConnectError(err error) error {
	return fmt.Errorf("etcd backend: %s does not answer: %w", strings.Join(s.cfg.Endpoints, ", "), err)
}
