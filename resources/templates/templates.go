// Package templates holds the larger files eggo renders for a cluster (the
// CoreDNS manifest, the pod routes script) as text/template files, so that
// they are reviewed as YAML and shell rather than as Go strings. The
// resource kinds fill in the data; nothing here knows about clusters.
//
// Each template's output is pinned byte for byte by the golden files in
// testdata/: a rendering that changes re-applies the add-on or restarts the
// service on every cluster.
package templates

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"strings"
	"text/template"

	"github.com/eggo-project/eggo/providers/shell"
)

//go:embed *.tmpl
var files embed.FS

var parsed = template.Must(template.New("").Option("missingkey=error").Funcs(template.FuncMap{
	"indent":  indent,
	"join":    strings.Join,
	"sha256":  sha256Hex,
	"shquote": shell.Quote, // the one quoting function for a shell
}).ParseFS(files, "*.tmpl"))

func render(name string, data any) (string, error) {
	var b strings.Builder
	if err := parsed.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("rendering %s: %w", name, err)
	}
	return b.String(), nil
}

// CoreDNSData is what the CoreDNS add-on's manifest is made of.
type CoreDNSData struct {
	Image     string   // the image, never pulled (imagePullPolicy: Never)
	Replicas  int      // the Deployment's replicas; fewer than one is one
	DNSIP     string   // the kube-dns Service's clusterIP
	DNSDomain string   // the cluster's DNS domain
	Upstream  []string // forward . UPSTREAM...; none: no forward block
}

// Corefile is the CoreDNS configuration (corefile.tmpl).
func Corefile(d CoreDNSData) (string, error) { return render("corefile.tmpl", d) }

// CoreDNS is the CoreDNS add-on's manifest (coredns.yaml.tmpl), with the
// Corefile in its ConfigMap and the Corefile's checksum in the pod
// template's annotations.
func CoreDNS(d CoreDNSData) (string, error) {
	corefile, err := Corefile(d)
	if err != nil {
		return "", err
	}
	d.Replicas = max(d.Replicas, 1)
	return render("coredns.yaml.tmpl", struct {
		CoreDNSData
		Corefile string
	}{d, corefile})
}

// indent puts n spaces before every line of s, ending each with a newline.
func indent(n int, s string) string {
	pad := strings.Repeat(" ", n)
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString(pad + line + "\n")
	}
	return b.String()
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
