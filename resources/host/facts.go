package host

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// hostRequiredCommands are what eggo's own remote scripts use (stat reads
// modes, so a file with the right content but the wrong mode is fixed).
var hostRequiredCommands = []string{"sh", "sha256sum", "mkdir", "mv", "rm", "cat", "uname", "df", "date", "getent", "chmod", "rmdir", "stat"}

// hostFactsData is what one facts command learns about a host.
type hostFactsData struct {
	os, osVersion, osName string
	machine, kernel       string
	hostname              string
	cgroup                string // v1 or v2 (resources.HostFactCgroup)
	resolves              bool
	missingCommands       []string
	remoteTime            time.Time // the host's clock …
	localTime             time.Time // … and this machine's at the midpoint of the round trip
	disks                 []hostDisk
}

// hostDisk is the free space of the filesystem a destination directory
// (or its nearest existing parent) is on.
type hostDisk struct {
	dir, mount string
	availKB    int64
}

// attr is the facts attribute.
func (f *hostFactsData) attr() map[string]any {
	return map[string]any{
		"os":                     f.os,
		"os_version":             f.osVersion,
		"os_name":                f.osName,
		"machine":                f.machine,
		"arch":                   goArch(f.machine),
		"kernel":                 f.kernel,
		"hostname":               f.hostname,
		resources.HostFactCgroup: f.cgroup,
	}
}

// goArch maps uname -m to the arch names packages/<arch> uses.
func goArch(machine string) string {
	switch machine {
	case "x86_64", "amd64":
		return "amd64"
	case "aarch64", "arm64", "armv8l":
		return "arm64"
	case "armv7l", "armv6l", "arm":
		return "arm"
	case "i386", "i486", "i586", "i686":
		return "386"
	}
	return machine // ppc64le, s390x, riscv64 are spelled alike
}

// factsScript prints key=value lines. It reads only; os-release is sourced
// in a subshell so its variables cannot clobber the script's own.
func factsScript(diskDirs []string) string {
	var b strings.Builder
	b.WriteString(`( [ -r /etc/os-release ] && . /etc/os-release; echo "os=${ID:-}"; echo "os_version=${VERSION_ID:-}"; echo "os_name=${PRETTY_NAME:-}" )
echo "machine=$(uname -m)"
echo "kernel=$(uname -r)"
h=$(uname -n)
echo "hostname=$h"
if getent hosts "$h" >/dev/null 2>&1; then echo resolves=yes; else echo resolves=no; fi
# The kubelet's own test (runc's IsCgroup2UnifiedMode): cgroup v2 is a
# cgroup2 filesystem at /sys/fs/cgroup; a hybrid host is v1 to it.
if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then echo cgroup=v2; else echo cgroup=v1; fi
for c in ` + strings.Join(hostRequiredCommands, " ") + `; do command -v "$c" >/dev/null 2>&1 || echo "missing_command=$c"; done
echo "time=$(date +%s.%N)"
`)
	if len(diskDirs) > 0 {
		b.WriteString(`df_of() { e=$1; while [ ! -d "$e" ]; do e=${e%/*}; [ -z "$e" ] && e=/; done; df -Pk "$e" | { read -r _; read -r l; echo "df=$1	$l"; }; }` + "\n")
		for _, d := range diskDirs {
			b.WriteString("df_of " + shell.Quote(d) + "\n")
		}
	}
	return b.String()
}

// gatherFacts runs the facts script, timing it for the clock check.
func (h *Host) gatherFacts(ctx context.Context, conn providers.Conn, diskDirs []string) (*hostFactsData, error) {
	start := h.now()
	out, err := resources.RunScript(ctx, conn, factsScript(diskDirs), false)
	end := h.now()
	if err != nil {
		return nil, fmt.Errorf("gathering facts: %w", err)
	}
	f := parseFacts(out)
	f.localTime = start.Add(end.Sub(start) / 2)
	return f, nil
}

func parseFacts(out string) *hostFactsData {
	f := &hostFactsData{}
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch k {
		case "os":
			f.os = v
		case "os_version":
			f.osVersion = v
		case "os_name":
			f.osName = v
		case "machine":
			f.machine = v
		case "kernel":
			f.kernel = v
		case "hostname":
			f.hostname = v
		case "resolves":
			f.resolves = v == "yes"
		case "cgroup":
			f.cgroup = v
		case "missing_command":
			f.missingCommands = append(f.missingCommands, v)
		case "time":
			f.remoteTime = parseEpoch(v)
		case "df":
			if d, ok := parseDF(v); ok {
				f.disks = append(f.disks, d)
			}
		}
	}
	return f
}

// parseEpoch reads date +%s.%N; a date without %N support prints a
// literal N, and whole seconds are still good enough for a 30 s limit.
func parseEpoch(s string) time.Time {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}
	}
	ns, err := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
	if err != nil {
		ns = 0
	}
	return time.Unix(n, ns)
}

// parseDF reads "DIR<TAB>fs blocks used avail capacity mount".
func parseDF(v string) (hostDisk, bool) {
	dir, line, ok := strings.Cut(v, "\t")
	fields := strings.Fields(line)
	if !ok || len(fields) < 6 {
		return hostDisk{}, false
	}
	avail, err := strconv.ParseInt(fields[3], 10, 64)
	if err != nil {
		return hostDisk{}, false
	}
	return hostDisk{dir: dir, mount: strings.Join(fields[5:], " "), availKB: avail}, true
}
