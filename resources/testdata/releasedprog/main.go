// Command releasedprog is a Go program built with a versioned module
// (golang.org/x/crypto, which eggo requires): TestBundleProgramRelease
// reads that module's version from its build information.
package main

import (
	"fmt"

	"golang.org/x/crypto/blake2b"
)

func main() { fmt.Printf("%x\n", blake2b.Sum256(nil)) }
