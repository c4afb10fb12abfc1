package e2e_test

import (
	"os"
	"testing"

	"github.com/eggo-project/eggo/internal/harness/eggotest"
)

// TestMain builds eggo once for the tests that run it as a program.
func TestMain(m *testing.M) { os.Exit(eggotest.Main(m)) }
