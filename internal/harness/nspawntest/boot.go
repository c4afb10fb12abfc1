package nspawntest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
)

// nspawnArgs is the command line that boots one node with systemd as PID 1.
// --register=no and --keep-unit keep systemd-nspawn from needing systemd on
// this machine.
func nspawnArgs(n nodeRecord, d nodeDirs, rec *record) []string {
	args := []string{
		"--boot", "--register=no", "--keep-unit", "--console=read-only",
		// Keep the node's own resolv.conf (see provision): copying this
		// machine's would send DNS queries off the testbed.
		"--resolv-conf=off",
		"--network-namespace-path=" + filepath.Join("/run/netns", n.Netns),
		"-D", n.Merged,
		// Unique across testbeds: nspawn keys host-side state such as
		// /run/systemd/nspawn/propagate/NAME by it. The node still calls
		// itself n.Name, from /etc/hostname.
		"--machine=" + n.Netns,
	}
	// Host directories every node sees read-only (Options.ReadOnlyBinds),
	// sorted so a node boots with the same command line each time.
	for _, node := range slices.Sorted(maps.Keys(rec.ReadOnlyBinds)) {
		args = append(args, "--bind-ro="+rec.ReadOnlyBinds[node]+":"+node)
	}
	if rec.Containers {
		// What containerd + runc needed inside a node (DESIGN.md, Testbed):
		// writable cgroup v1 controllers, a session keyring for runc,
		// /dev/kmsg for kubelet, and a containerd store off the overlay
		// root because overlayfs cannot stack on it.
		args = append(args,
			"--capability=all",
			"--bind=/sys/fs/cgroup",
			"--system-call-filter=keyctl add_key request_key",
			"--bind=/dev/kmsg",
			"--bind="+d.containerd+":/var/lib/containerd",
		)
	}
	return args
}

func nspawnEnv(containers bool) []string {
	env := os.Environ()
	if containers {
		env = append(env, "SYSTEMD_NSPAWN_API_VFS_WRITABLE=1", "SYSTEMD_SECCOMP=0")
	}
	return env
}

func logPath(tbDir, node string) string {
	return filepath.Join(tbDir, "nodes", node, "nspawn.log")
}

// bootNode starts systemd-nspawn in its own session with output to the
// node's log, so it outlives the process that started it (the CLI). The
// returned channel closes when this process has reaped it.
func bootNode(tbDir string, n *nodeRecord, rec *record) (chan struct{}, error) {
	logf, err := os.OpenFile(logPath(tbDir, n.Name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", n.Name, err)
	}
	defer logf.Close()
	cmd := exec.Command("systemd-nspawn", nspawnArgs(*n, dirsFor(tbDir, n.Name), rec)...)
	cmd.Env = nspawnEnv(rec.Containers)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("node %s: start systemd-nspawn: %w", n.Name, err)
	}
	n.PID = cmd.Process.Pid
	n.StartTime, _ = procStartTime(n.PID)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return done, nil
}

// logTail is the end of a node's systemd-nspawn log, for error messages.
func logTail(tbDir, node string) string {
	data, err := os.ReadFile(logPath(tbDir, node))
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	return tailLines(string(data), 15)
}

// errExitedEarly: a node's systemd-nspawn exited before its sshd answered.
var errExitedEarly = errors.New("systemd-nspawn exited before sshd answered")

// bootRetries is how many more times a node whose systemd-nspawn exited
// before its sshd answered is booted. On a legacy cgroup hierarchy every
// node's nspawn (run with --keep-unit from this machine's root cgroup) puts
// its container in the same /payload cgroup, and one nspawn exiting can
// remove it while another attaches ("Failed to attach … to compat systemd
// cgroup //payload: No such file or directory"): seen when the engine's
// tests boot one testbed while another shuts down. The next try succeeds.
const bootRetries = 2

// waitBooted waits for a node's sshd, booting the node again when its
// nspawn exits first (see bootRetries); save records a new nspawn's pid.
func (tb *Testbed) waitBooted(ctx context.Context, n *nodeRecord, exited <-chan struct{}, save func() error, logf func(string, ...any)) error {
	for try := 0; ; try++ {
		err := tb.waitSSH(ctx, n.Name, exited)
		if err == nil || !errors.Is(err, errExitedEarly) || try == bootRetries || ctx.Err() != nil {
			return err
		}
		logf("testbed %s: node %s: %v; booting it again", tb.ID, n.Name, errExitedEarly)
		if exited, err = bootNode(tb.Dir, n, tb.rec); err != nil {
			return err
		}
		if err := save(); err != nil {
			return err
		}
	}
}
