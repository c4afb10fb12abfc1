package command

import (
	"os"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/host"
)

// TestMain runs the command layer's tests with the host kind alone: they
// test parsing, views, approval, saved plans and exit codes, which the
// Kubernetes kinds would only slow down (and could not apply here without
// systemd). TestPlanAllKinds covers the full set of kinds.
func TestMain(m *testing.M) {
	testKinds = []resources.Kind{host.New()}
	os.Exit(m.Run())
}

// withAllKinds lets one test plan with every registered kind.
func withAllKinds(t *testing.T) {
	saved := testKinds
	testKinds = nil
	t.Cleanup(func() { testKinds = saved })
}
