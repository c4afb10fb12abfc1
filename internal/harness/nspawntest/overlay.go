package nspawntest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// nodeDirs are a node's overlay layers and its containerd store inside the
// testbed dir.
type nodeDirs struct{ upper, work, merged, containerd string }

func dirsFor(tbDir, node string) nodeDirs {
	base := filepath.Join(tbDir, "nodes", node)
	return nodeDirs{
		upper:      filepath.Join(base, "upper"),
		work:       filepath.Join(base, "work"),
		merged:     filepath.Join(base, "root"),
		containerd: filepath.Join(base, "containerd"),
	}
}

// mountOverlay gives the node its own writable copy of the shared rootfs.
func mountOverlay(lower string, d nodeDirs) error {
	for _, p := range []string{d.upper, d.work, d.merged, d.containerd} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
	}
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", lower, d.upper, d.work)
	if err := syscall.Mount("overlay", d.merged, "overlay", 0, opts); err != nil {
		return fmt.Errorf("mount overlay at %s: %w", d.merged, err)
	}
	return nil
}

// unmount detaches path; a busy mount is detached lazily so teardown
// always makes progress.
func unmount(path string) error {
	err := syscall.Unmount(path, 0)
	if err == syscall.EBUSY {
		err = syscall.Unmount(path, syscall.MNT_DETACH)
	}
	if err != nil && err != syscall.EINVAL && err != syscall.ENOENT {
		return fmt.Errorf("unmount %s: %w", path, err)
	}
	return nil
}

// mountsUnder lists mount points at or below dir, deepest first so they can
// be unmounted in that order.
func mountsUnder(dir string) []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	dir = filepath.Clean(dir)
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMount(fields[4])
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, …).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// removeTree unmounts whatever is mounted below dir (debootstrap leaves /proc
// and /sys mounted when interrupted) and only then deletes dir: deleting
// through a mount would delete the mounted filesystem's files.
func removeTree(dir string) error {
	if err := unmountAll(dir); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	return nil
}

// unmountAll unmounts every mount at or below dir, deepest first.
func unmountAll(dir string) error {
	for _, mp := range mountsUnder(dir) {
		if err := unmount(mp); err != nil {
			return err
		}
	}
	if left := mountsUnder(dir); len(left) > 0 {
		return fmt.Errorf("still mounted %v; leaving %s in place", left, dir)
	}
	return nil
}
