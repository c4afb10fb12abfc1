package sshdtest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Stop kills sshd and everything it started. sshd gives each connection
// its own session (setsid), so killing its process group alone would leave
// connection handlers and the users' commands behind: the whole process
// tree is frozen first (so nothing can fork away), then killed. Commands
// orphaned by a closed connection have left the tree; they are found by the
// SSH_CONNECTION variable sshd gave them, which names this server's port.
func (s *Server) Stop() {
	s.stopped.Do(func() {
		pid := s.cmd.Process.Pid
		_ = syscall.Kill(pid, syscall.SIGSTOP)
		tree := map[int]bool{}
		for round := 0; round < 50; round++ {
			grew := false
			for _, p := range append(descendants(pid), s.orphans()...) {
				if !tree[p] {
					tree[p] = true
					grew = true
					_ = syscall.Kill(p, syscall.SIGSTOP)
				}
			}
			if !grew {
				break
			}
		}
		for p := range tree {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		select {
		case <-s.waitExit:
		case <-time.After(5 * time.Second):
		}
		// Killed processes vanish asynchronously (orphans are reaped by
		// init): wait so that none is left when Stop returns.
		deadline := time.Now().Add(5 * time.Second)
		for p := range tree {
			for Running(p) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
		}
	})
}

// Running reports whether pid exists and is not a zombie.
func Running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z' && s[i+2] != 'X'
}

// descendants lists every process below pid, read from /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := parentOf(p); pp > 0 {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, c := range children[cur] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// parentOf reads the parent pid from /proc/PID/stat; the command name in
// parentheses may contain spaces, so fields are counted after the last ')'.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(f[1])
	return pp
}

// orphans lists processes started through this server that no longer
// descend from it, with their descendants (a sudo'd command has a clean
// environment but is a child of sudo).
func (s *Server) orphans() []int {
	suffix := " 127.0.0.1 " + strconv.Itoa(s.Port)
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(env), "\x00") {
			if strings.HasPrefix(kv, "SSH_CONNECTION=") && strings.HasSuffix(kv, suffix) {
				out = append(out, p)
				out = append(out, descendants(p)...)
				break
			}
		}
	}
	return out
}
