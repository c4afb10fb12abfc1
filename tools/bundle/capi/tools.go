//go:build tools

// Package tools names the commands capi.sh builds, so that go mod tidy keeps
// every module they need in go.mod and go.sum. The tag keeps it out of builds.
package tools

import (
	_ "sigs.k8s.io/cluster-api/cmd/clusterctl"
	_ "sigs.k8s.io/cluster-api/core"
)
