package nspawntest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// procStartTime is field 22 of /proc/PID/stat (clock ticks since boot); with
// the pid it names one process for good, even after the pid is reused.
// ok is false when the process is gone or a zombie.
func procStartTime(pid int) (start uint64, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// comm (field 2) may hold spaces; everything after its ')' is fixed.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 20 || fields[0] == "Z" || fields[0] == "X" {
		return 0, false
	}
	start, err = strconv.ParseUint(fields[19], 10, 64)
	return start, err == nil
}

// sameProcess reports whether pid still is the process that started at start.
func sameProcess(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	s, ok := procStartTime(pid)
	return ok && (start == 0 || s == start)
}

func allPIDs() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != os.Getpid() {
			out = append(out, pid)
		}
	}
	return out
}

// nspawnsUnder finds systemd-nspawn processes booting a directory below dir,
// including any whose pid never made it into the record.
func nspawnsUnder(dir string) []int {
	var out []int
	for _, pid := range allPIDs() {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil || len(data) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		if filepath.Base(args[0]) != "systemd-nspawn" {
			continue
		}
		for _, a := range args[1:] {
			if strings.HasPrefix(a, dir+"/") {
				if _, ok := procStartTime(pid); ok {
					out = append(out, pid)
				}
				break
			}
		}
	}
	return out
}

// processesRootedUnder finds processes whose root directory lies below dir:
// a node's processes, should any outlive their systemd-nspawn.
func processesRootedUnder(dir string) []int {
	var out []int
	for _, pid := range allPIDs() {
		root, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/root")
		if err != nil {
			continue
		}
		if strings.HasPrefix(root, dir+"/") {
			if _, ok := procStartTime(pid); ok {
				out = append(out, pid)
			}
		}
	}
	return out
}

// terminate sends SIGTERM (systemd-nspawn turns it into a clean shutdown of
// the node), waits up to grace, then SIGKILLs and waits for the process to go.
func terminate(pid int, start uint64, grace time.Duration) (killed bool) {
	if !sameProcess(pid, start) {
		return false
	}
	syscall.Kill(pid, syscall.SIGTERM)
	if waitGone(pid, start, grace) {
		return false
	}
	syscall.Kill(pid, syscall.SIGKILL)
	waitGone(pid, start, 10*time.Second)
	return true
}

func waitGone(pid int, start uint64, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !sameProcess(pid, start) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return !sameProcess(pid, start)
}
