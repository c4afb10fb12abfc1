package pki

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestKubeconfigGolden(t *testing.T) {
	ca, cert, key := readTestdata(t, "ca.crt"), readTestdata(t, "admin.crt"), readTestdata(t, "admin.key")
	got := Kubeconfig("demo", "https://10.77.0.10:6443", ca, "kubernetes-admin", cert, key)
	if again := Kubeconfig("demo", "https://10.77.0.10:6443", ca, "kubernetes-admin", cert, key); again != got {
		t.Fatal("same inputs gave different output")
	}
	golden := filepath.Join("testdata", "admin.kubeconfig.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want := readTestdata(t, "admin.kubeconfig.golden"); got != want {
		t.Errorf("kubeconfig differs from %s (run go test -update to accept):\n%s", golden, got)
	}

	// The embedded data decodes back to the inputs.
	fields := map[string]string{}
	for _, line := range strings.Split(got, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ": "); ok {
			fields[k] = v
		}
	}
	for k, want := range map[string]string{
		"certificate-authority-data": ca, "client-certificate-data": cert, "client-key-data": key,
	} {
		dec, err := base64.StdEncoding.DecodeString(fields[k])
		if err != nil || string(dec) != want {
			t.Errorf("%s does not decode to its input (err %v)", k, err)
		}
	}
	if fields["current-context"] != "kubernetes-admin@demo" {
		t.Errorf("current-context = %q", fields["current-context"])
	}
}

func TestYAMLString(t *testing.T) {
	for in, want := range map[string]string{
		"demo":                    "demo",
		"kubernetes-admin@demo":   "kubernetes-admin@demo",
		"https://10.0.0.1:6443":   "https://10.0.0.1:6443",
		"system:node:w0":          "system:node:w0",
		"":                        `""`,
		"true":                    `"true"`,
		"No":                      `"No"`,
		"1.5":                     `"1.5"`,
		"-x":                      `"-x"`,
		"a: b":                    `"a: b"`,
		"a:":                      `"a:"`,
		"x #c":                    `"x #c"`,
		"line\nbreak":             `"line\nbreak"`,
		`quote"d`:                 `"quote\"d"`,
		"*.example":               `"*.example"`,
		"{a}":                     `"{a}"`,
		"demo cluster":            `"demo cluster"`,
		"https://[fd00::1]:6443":  `"https://[fd00::1]:6443"`,
		"https://api.example/x-y": "https://api.example/x-y",
	} {
		if got := yamlString(in); got != want {
			t.Errorf("yamlString(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestKubeconfigKubectl lets kubectl, the real consumer, read the file,
// including names that need quoting.
func TestKubeconfigKubectl(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed; the golden test still covers the format")
	}
	ca, cert, key := readTestdata(t, "ca.crt"), readTestdata(t, "admin.crt"), readTestdata(t, "admin.key")
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cluster, user := "my cluster: true", "admin #1"
	if err := os.WriteFile(path, []byte(Kubeconfig(cluster, "https://[fd00::1]:6443", ca, user, cert, key)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(kubectl, "config", "view", "--raw", "-o", "json", "--kubeconfig", path).Output()
	if err != nil {
		t.Fatalf("kubectl config view: %v", err)
	}
	var cfg struct {
		Clusters []struct {
			Name    string
			Cluster struct {
				Server string
				CAData string `json:"certificate-authority-data"`
			}
		}
		Users []struct {
			Name string
			User struct {
				CertData string `json:"client-certificate-data"`
				KeyData  string `json:"client-key-data"`
			}
		}
		Contexts []struct {
			Name    string
			Context struct{ Cluster, User string }
		}
		CurrentContext string `json:"current-context"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("kubectl output: %v", err)
	}
	if len(cfg.Clusters) != 1 || len(cfg.Users) != 1 || len(cfg.Contexts) != 1 {
		t.Fatalf("kubectl read %d clusters, %d users, %d contexts", len(cfg.Clusters), len(cfg.Users), len(cfg.Contexts))
	}
	c, u, x := cfg.Clusters[0], cfg.Users[0], cfg.Contexts[0]
	if c.Name != cluster || c.Cluster.Server != "https://[fd00::1]:6443" || u.Name != user ||
		x.Name != user+"@"+cluster || x.Context.Cluster != cluster || x.Context.User != user ||
		cfg.CurrentContext != x.Name {
		t.Errorf("kubectl read names wrong: %+v", cfg)
	}
	if c.Cluster.CAData != b64(ca) || u.User.CertData != b64(cert) || u.User.KeyData != b64(key) {
		t.Error("kubectl read different certificate data")
	}
}

// TestKubeconfigIsOneBuffer: a kubeconfig is written into one buffer of
// its size, its certificates and key encoded straight into it (a plan
// renders every node's kubeconfigs to compare them); the base64 is the
// standard one, whatever the lengths.
func TestKubeconfigIsOneBuffer(t *testing.T) {
	ca, cert, key := strings.Repeat("C", 700), strings.Repeat("c", 1000), strings.Repeat("k", 241)
	got := Kubeconfig("demo", "https://10.77.0.10:6443", ca, "system:node:w1", cert, key)
	for _, s := range []string{ca, cert, key, "", "a", "ab", "abc", strings.Repeat("x", 769)} {
		var b strings.Builder
		writeBase64(&b, s)
		if b.String() != b64(s) {
			t.Fatalf("base64 of %d bytes = %q, want %q", len(s), b.String(), b64(s))
		}
	}
	if !strings.Contains(got, "client-key-data: "+b64(key)+"\n") {
		t.Fatalf("kubeconfig lacks the key:\n%s", got)
	}
	in := kubeconfigInputs{"demo", "https://10.77.0.10:6443", ca, "system:node:w1", cert, key}
	allocs := testing.AllocsPerRun(20, func() {
		renderKubeconfig(in) // the rendering itself: Kubeconfig remembers the answer
	})
	if allocs > 2 { // the buffer, and user@cluster
		t.Errorf("Kubeconfig allocates %.0f times, want 2", allocs)
	}
}

// TestKubeconfigRendersRepeatedInputsOnce: a plan renders each service's
// kubeconfigs twice, and kube-proxy's and flanneld's alike on every
// worker; inputs rendered lately are not rendered again.
func TestKubeconfigRendersRepeatedInputsOnce(t *testing.T) {
	ca, key := strings.Repeat("C", 700), strings.Repeat("k", 241)
	before := recentKubeconfigs.Computed()
	for i := range 1000 {
		cert := fmt.Sprintf("cert of w%05d", i)
		for range 2 {
			Kubeconfig("demo", "https://10.77.0.10:6443", ca, "system:node:w"+fmt.Sprint(i), cert, key)
			Kubeconfig("demo", "https://10.77.0.10:6443", ca, "system:kube-proxy", "proxy cert", key)
		}
	}
	if n := recentKubeconfigs.Computed() - before; n > 1000+1000/32+1 {
		t.Errorf("%d kubeconfigs rendered for 1,000 rendered twice and one shared by all: want about 1,032", n)
	}
}
