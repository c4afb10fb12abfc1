package eggotest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRootFindsTheCheckout: Root is the checkout this package is in, also
// under -trimpath (make test's), where a source file's path is no directory.
func TestRootFindsTheCheckout(t *testing.T) {
	root := Root()
	if _, err := os.Stat(filepath.Join(root, "internal", "harness", "eggotest", "eggotest.go")); err != nil {
		t.Fatalf("Root() = %s, which does not hold this package: %v", root, err)
	}
}
