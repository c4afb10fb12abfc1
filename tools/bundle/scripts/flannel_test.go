package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// upstreamImports is the backend block of flannel v0.28.10's main.go.
const upstreamImports = `package main

import (
	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/flannel-io/flannel/pkg/backend"
	_ "github.com/flannel-io/flannel/pkg/backend/alloc"
	_ "github.com/flannel-io/flannel/pkg/backend/extension"
	_ "github.com/flannel-io/flannel/pkg/backend/hostgw"
	_ "github.com/flannel-io/flannel/pkg/backend/ipip"
	_ "github.com/flannel-io/flannel/pkg/backend/ipsec"
	_ "github.com/flannel-io/flannel/pkg/backend/tencentvpc"
	_ "github.com/flannel-io/flannel/pkg/backend/udp"
	_ "github.com/flannel-io/flannel/pkg/backend/vxlan"
	_ "github.com/flannel-io/flannel/pkg/backend/wireguard"
)

func main() {}
`

func editMain(t *testing.T, content string) (path, log string, err error) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("./flannel-main.sh", path).CombinedOutput()
	return path, string(out), err
}

func backendImports(src string) []string {
	return regexp.MustCompile(`(?m)^\t_ "github.com/flannel-io/flannel/pkg/backend/(\w+)"$`).FindAllString(src, -1)
}

func TestFlannelMainDropsExactlyTheTwoBackends(t *testing.T) {
	path, log, err := editMain(t, upstreamImports)
	if err != nil {
		t.Fatalf("flannel-main.sh: %v\n%s", err, log)
	}
	got, _ := os.ReadFile(path)
	want := strings.Replace(upstreamImports, "\t_ \"github.com/flannel-io/flannel/pkg/backend/tencentvpc\"\n", "", 1)
	want = strings.Replace(want, "\t_ \"github.com/flannel-io/flannel/pkg/backend/udp\"\n", "", 1)
	if string(got) != want {
		t.Errorf("edited main.go:\n%s\nwant:\n%s", got, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("edited main.go has mode %v, want the original 0644", st.Mode().Perm())
	}
	if n := len(backendImports(string(got))); n != 7 {
		t.Errorf("%d backends left, want 7 (alloc, extension, hostgw, ipip, ipsec, vxlan, wireguard)", n)
	}
}

// A release whose imports differ from the ones the edit was written for must
// stop the build, naming the line, with main.go as it was.
func TestFlannelMainFailsLoudlyOnOtherImports(t *testing.T) {
	for name, tc := range map[string]struct{ content, want string }{
		"udp renamed": {
			strings.Replace(upstreamImports, "backend/udp\"", "backend/udpproxy\"", 1),
			`has the line '_ "github.com/flannel-io/flannel/pkg/backend/udp"' 0 times`,
		},
		"spaces instead of a tab": {
			strings.Replace(upstreamImports, "\t_ \"github.com/flannel-io/flannel/pkg/backend/tencentvpc\"", "    _ \"github.com/flannel-io/flannel/pkg/backend/tencentvpc\"", 1),
			`'_ "github.com/flannel-io/flannel/pkg/backend/tencentvpc"' 0 times`,
		},
		"imported twice": {
			strings.Replace(upstreamImports, "func main() {}", "// keep udp:\n\t_ \"github.com/flannel-io/flannel/pkg/backend/udp\"\nfunc main() {}", 1),
			`'_ "github.com/flannel-io/flannel/pkg/backend/udp"' 2 times`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			path, log, err := editMain(t, tc.content)
			if err == nil || !strings.Contains(log, tc.want) {
				t.Errorf("flannel-main.sh: %v, %q; want an error saying %q", err, log, tc.want)
			}
			if got, _ := os.ReadFile(path); string(got) != tc.content {
				t.Errorf("a failed edit changed main.go:\n%s", got)
			}
			if left, _ := filepath.Glob(path + ".*"); len(left) > 0 {
				t.Errorf("a failed edit left %v", left)
			}
		})
	}
}

// The release flannel.sh builds, when the module cache holds it (after a
// bundle build): the edit applies to upstream's own main.go and keeps the
// backends eggo uses.
func TestFlannelMainOnThePinnedRelease(t *testing.T) {
	script, err := os.ReadFile("flannel.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^flannel_version=(v\S+)$`).FindSubmatch(script)
	if m == nil {
		t.Fatal("flannel.sh sets no flannel_version=vX.Y.Z")
	}
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	upstream, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(modcache)), "github.com/flannel-io/flannel@"+string(m[1]), "main.go"))
	if err != nil {
		t.Skipf("flannel %s is not in the module cache (flannel.sh downloads it): %v", m[1], err)
	}
	path, log, err := editMain(t, string(upstream))
	if err != nil {
		t.Fatalf("flannel-main.sh on upstream's %s main.go: %v\n%s", m[1], err, log)
	}
	got, _ := os.ReadFile(path)
	left := strings.Join(backendImports(string(got)), "\n")
	for _, b := range []string{"vxlan", "hostgw"} {
		if !strings.Contains(left, "pkg/backend/"+b+`"`) {
			t.Errorf("the %s backend is gone from main.go; left:\n%s", b, left)
		}
	}
	if strings.Contains(string(got), "backend/udp\"") || strings.Contains(string(got), "backend/tencentvpc\"") {
		t.Errorf("main.go still imports udp or tencentvpc; left:\n%s", left)
	}
}

// The README's table names the releases the bundle ships: a bump of either
// pin must update it.
func TestFlannelReleasesAreTheReadmes(t *testing.T) {
	script, _ := os.ReadFile("flannel.sh")
	gomod, _ := os.ReadFile("../flannel/go.mod")
	readme, _ := os.ReadFile("../README.md")
	flannel := regexp.MustCompile(`(?m)^flannel_version=(v\S+)$`).FindSubmatch(script)
	plugins := regexp.MustCompile(`(?m)^require github.com/containernetworking/plugins (v\S+)$`).FindSubmatch(gomod)
	if flannel == nil || plugins == nil {
		t.Fatalf("no flannel_version= in flannel.sh (%v) or no direct require of containernetworking/plugins in flannel/go.mod (%v)", flannel, plugins)
	}
	for _, want := range []string{"| flanneld | all | flannel " + string(flannel[1]) + ",", "containernetworking/plugins " + string(plugins[1])} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}
