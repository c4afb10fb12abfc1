package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeApt puts apt-cache, apt-get and dpkg-deb stand-ins first on PATH. Like a
// fresh machine, apt-cache knows no candidate until `apt-get update` ran. Each
// call is appended to calls.log. dpkg-deb -x unpacks a "deb" that lists
// the paths its package holds, one per line.
func fakeApt(t *testing.T, cniPlugins string) (env []string, state string) {
	t.Helper()
	state = t.TempDir()
	bin := filepath.Join(state, "bin")
	os.Mkdir(bin, 0o755)
	write := func(name, script string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/bash\nS="+state+"\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("apt-cache", `echo "apt-cache $*" >>$S/calls.log
shift # policy
for p in "$@"; do
  echo "$p:"; echo "  Installed: (none)"
  if [[ -f $S/updated ]]; then echo "  Candidate: 1.0-$p"; else echo "  Candidate: (none)"; fi
done
`)
	write("apt-get", `echo "apt-get $*" >>$S/calls.log
case $1 in
update) touch $S/updated ;;
download)
  for a in "$@"; do
    [[ $a == *=* ]] || continue
    case ${a%%=*} in
    etcd-server) echo /usr/bin/etcd ;;
    etcd-client) echo /usr/bin/etcdctl ;;
    containerd) printf '%s\n' /usr/bin/containerd /usr/bin/containerd-shim-runc-v2 /usr/bin/ctr /usr/bin/containerd-stress ;;
    runc) echo /usr/sbin/runc ;;
    containernetworking-plugins) for p in `+cniPlugins+`; do echo /usr/lib/cni/$p; done ;;
    esac >"${a%%=*}_${a#*=}_amd64.deb"
  done ;;
esac
`)
	write("dpkg-deb", `[[ $1 == -x ]] || exit 2
while read -r f; do mkdir -p "$3$(dirname "$f")"; echo "from $2" >"$3$f"; chmod 755 "$3$f"; done <"$2"
`)
	return append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH")), state
}

func runDebs(t *testing.T, env []string, out string, groups ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("./debs.sh", append([]string{out}, groups...)...)
	cmd.Env = env
	log, err := cmd.CombinedOutput()
	return string(log), err
}

func TestDebsUpdatesAptThenPlacesTheBinaries(t *testing.T) {
	env, state := fakeApt(t, "bridge host-local loopback portmap")
	out := filepath.Join(t.TempDir(), "debs")
	if log, err := runDebs(t, env, out); err != nil {
		t.Fatalf("debs.sh: %v\n%s", err, log)
	}
	calls, _ := os.ReadFile(filepath.Join(state, "calls.log"))
	if !strings.Contains(string(calls), "apt-get update") {
		t.Errorf("no apt-get update on a machine without package lists; calls:\n%s", calls)
	}
	if !strings.Contains(string(calls), "apt-get download -qq -o APT::Sandbox::User=root etcd-server=1.0-etcd-server") {
		t.Errorf("download does not pin the candidate versions; calls:\n%s", calls)
	}
	for _, p := range []string{"usr/local/bin/etcd", "usr/local/bin/etcdctl", "usr/local/bin/containerd",
		"usr/local/bin/containerd-shim-runc-v2", "usr/local/bin/ctr", "usr/local/bin/runc",
		"opt/cni/bin/bridge", "opt/cni/bin/portmap"} {
		st, err := os.Stat(filepath.Join(out, p))
		if err != nil || st.Mode().Perm() != 0o755 {
			t.Errorf("%s: %v, %v; want an executable file", p, st, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "usr/local/bin/containerd-stress")); err == nil {
		t.Errorf("containerd-stress was placed: only the binaries a host needs belong in the bundle")
	}
	// Each file names its package and version for the MANIFEST.
	from, _ := os.ReadFile(filepath.Join(out, ".eggo-bundle-from"))
	for _, want := range []string{
		"usr/local/bin/etcd debian:etcd-server 1.0-etcd-server\n",
		"usr/local/bin/ctr debian:containerd 1.0-containerd\n",
		"usr/local/bin/runc debian:runc 1.0-runc\n",
		"opt/cni/bin/portmap debian:containernetworking-plugins 1.0-containernetworking-plugins\n",
	} {
		if !strings.Contains(string(from), want) {
			t.Errorf(".eggo-bundle-from lacks %q:\n%s", want, from)
		}
	}
	if n := strings.Count(string(from), "\n"); n != 10 {
		t.Errorf(".eggo-bundle-from has %d lines, want 10 (6 binaries, 4 plugins):\n%s", n, from)
	}

	// A second run with the same package versions downloads nothing.
	os.Remove(filepath.Join(state, "calls.log"))
	log, err := runDebs(t, env, out)
	calls, _ = os.ReadFile(filepath.Join(state, "calls.log"))
	if err != nil || !strings.Contains(log, "cached") || strings.Contains(string(calls), "apt-get") {
		t.Errorf("second run: %v, %q, calls:\n%s; want it cached without apt-get", err, log, calls)
	}
}

func TestDebsNamesAMissingCNIPlugin(t *testing.T) {
	env, _ := fakeApt(t, "host-local loopback portmap")
	out := filepath.Join(t.TempDir(), "debs")
	log, err := runDebs(t, env, out)
	if err == nil || !strings.Contains(log, "CNI plugin bridge missing") {
		t.Fatalf("debs.sh without a bridge plugin: %v, %q; want an error naming it", err, log)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed run left %s behind as if complete", out)
	}
}

// A minor whose row takes only some of Debian's binaries gets a part of
// those groups: nothing of the others is downloaded or placed.
func TestDebsPlacesOnlyTheGroupsNamed(t *testing.T) {
	env, state := fakeApt(t, "bridge host-local loopback portmap")
	out := filepath.Join(t.TempDir(), "debs-runtime-cni")
	if log, err := runDebs(t, env, out, "runtime", "cni"); err != nil {
		t.Fatalf("debs.sh runtime cni: %v\n%s", err, log)
	}
	calls, _ := os.ReadFile(filepath.Join(state, "calls.log"))
	if strings.Contains(string(calls), "etcd") {
		t.Errorf("etcd's packages were asked for; calls:\n%s", calls)
	}
	for p, want := range map[string]bool{"usr/local/bin/etcd": false, "usr/local/bin/etcdctl": false,
		"usr/local/bin/containerd": true, "usr/local/bin/runc": true, "opt/cni/bin/bridge": true} {
		if _, err := os.Stat(filepath.Join(out, p)); (err == nil) != want {
			t.Errorf("%s there: %v, want %v", p, err == nil, want)
		}
	}
	if log, err := runDebs(t, env, out, "runtime", "etcd", "dns"); err == nil || !strings.Contains(log, "unknown group 'dns'") {
		t.Errorf("debs.sh with an unknown group: %v, %q; want an error naming it", err, log)
	}
}
