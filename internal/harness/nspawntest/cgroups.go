package nspawntest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The nodes share this machine's cgroup hierarchy (--bind=/sys/fs/cgroup),
// so what a node's kubelet makes there outlives the node: with eggo's
// runtime.cgroup_root_per_node that is the tree /sys/fs/cgroup/*/eggo-ID,
// ID the node's machine ID. Teardown removes those trees of its nodes
// (and only theirs: another testbed's kubelets may be running).

// cgroupRootsPrefix is what eggo names a kubelet's cgroup root after:
// "eggo-" and the host's machine ID.
const cgroupRootsPrefix = "eggo-"

// nodeMachineIDs are the machine IDs of the testbed's running nodes, read
// through the root of every process of theirs.
func nodeMachineIDs(dir string) []string {
	seen := map[string]bool{}
	var out []string
	for _, pid := range processesRootedUnder(dir) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/root/etc/machine-id", pid))
		id := strings.TrimSpace(string(b))
		if err != nil || id == "" || strings.ContainsAny(id, "/*?[") || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	return out
}

// leftCgroupRoots are the machine IDs of the kubelet cgroup roots in the
// hierarchies under cgroupfs.
func leftCgroupRoots(cgroupfs string) []string {
	roots, _ := filepath.Glob(filepath.Join(cgroupfs, "*", cgroupRootsPrefix+"*"))
	seen := map[string]bool{}
	var out []string
	for _, r := range roots {
		if id := strings.TrimPrefix(filepath.Base(r), cgroupRootsPrefix); !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// removeCgroupRoots removes the cgroup trees named after ids in every
// hierarchy under cgroupfs, deepest first. Once the nodes' processes are
// gone every cgroup there is empty, but the kernel may hold a memory
// cgroup busy for a moment after its last process: it tries for up to
// 5 s. One still in use stays (rmdir refuses).
func removeCgroupRoots(cgroupfs string, ids []string) {
	for try := 0; try < 25; try++ {
		left := false
		for _, id := range ids {
			roots, _ := filepath.Glob(filepath.Join(cgroupfs, "*", cgroupRootsPrefix+id))
			for _, root := range roots {
				var dirs []string
				filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
					if err == nil && d.IsDir() {
						dirs = append(dirs, p)
					}
					return nil
				})
				for i := len(dirs) - 1; i >= 0; i-- {
					if os.Remove(dirs[i]) != nil {
						left = true
					}
				}
			}
		}
		if !left {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
