//go:build tools

// Package tools names the CNI flannel plugin that ../scripts/flannel.sh builds
// (`go build github.com/containernetworking/plugins/plugins/meta/flannel`:
// upstream's main, unchanged), so that go mod tidy keeps every module it needs
// in go.mod and go.sum. The tag keeps it out of builds. A module of its own,
// test-only: eggo's go.mod does not grow.
//
// The plugin left containernetworking/plugins after v0.9.1 for
// github.com/flannel-io/cni-plugin, which the module proxy reachable here
// refuses; v0.9.1 is the last release that has it (CNI spec 0.1.0 to 0.4.0).
package tools

import (
	_ "github.com/containernetworking/plugins/plugins/meta/flannel"
)
