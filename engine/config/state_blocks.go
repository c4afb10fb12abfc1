package config

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/state"
)

// Secrets is the secrets block: the public keys the state's secrets are
// encrypted to.
type Secrets struct {
	Recipients []string
	Range      hcl.Range
}

// Backend is the backend block: where the state is kept.
type Backend struct {
	Type string // "file" or "etcd"
	// file
	Path string // absolute; "" means the default eggo.state
	// etcd
	Endpoints                 []string
	Prefix                    string // ends with "/"
	CAFile, CertFile, KeyFile string // absolute
	LockTTL                   time.Duration
	LockTimeout               time.Duration // how long to wait for a held lock; 0 refuses at once
	Range                     hcl.Range
}

// stateOnly picks the secrets and backend blocks out of a file.
var stateOnly = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "secrets"}, {Type: "backend", LabelNames: []string{"type"}}}}

// loadStateBlocks decodes the secrets and backend blocks. Like hooks they
// are decoded once the rest has loaded, so variables and locals (and
// file()) may be used in them.
func (l *loader) loadStateBlocks(cfg *Config) hcl.Diagnostics {
	if cfg == nil || cfg.Cluster == nil {
		return nil
	}
	var diags hcl.Diagnostics
	var secrets, backend *hcl.Block
	for _, b := range l.blocksOf(stateOnly) {
		switch b.Type {
		case "secrets":
			if secrets != nil {
				diags = append(diags, duplicateSingleton(b, secrets))
				continue
			}
			secrets = b
			s, d := l.decodeSecrets(b)
			diags = append(diags, d...)
			cfg.Secrets = s
		case "backend":
			if backend != nil {
				diags = append(diags, duplicateSingleton(b, backend))
				continue
			}
			backend = b
			be, d := l.decodeBackend(b)
			diags = append(diags, d...)
			cfg.Backend = be
		}
	}
	if !diags.HasErrors() {
		cfg.Hash = l.hash()
	}
	return diags
}

// blocksOf returns the blocks of schema in every parsed file, in file name
// order and then declaration order.
func (l *loader) blocksOf(schema *hcl.BodySchema) hcl.Blocks {
	files := l.parser.Files()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var out hcl.Blocks
	for _, name := range names {
		content, _, _ := files[name].Body.PartialContent(schema)
		if content != nil {
			out = append(out, content.Blocks...)
		}
	}
	return out
}

func (l *loader) blockDecoder(b *hcl.Block, schema *hcl.BodySchema) (*decoder, hcl.Attributes, hcl.Diagnostics) {
	content, diags := b.Body.Content(schema)
	if diags.HasErrors() {
		return nil, nil, diags
	}
	refs, d := l.references(bodyTraversals(b.Body), scopeRules{})
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, nil, diags
	}
	dec := l.decoder(l.scope(refs))
	dec.diags = diags
	return dec, dec.require(schema, content.Attributes), nil
}

func (l *loader) decodeSecrets(b *hcl.Block) (*Secrets, hcl.Diagnostics) {
	dec, attrs, diags := l.blockDecoder(b, secretsSchema)
	if dec == nil {
		return nil, diags
	}
	s := &Secrets{Range: b.DefRange}
	list, ok := dec.stringList(attrs, "recipients")
	if ok {
		a := attrs["recipients"]
		for i, r := range list {
			// A recipients file may hold several keys, one per line.
			for _, line := range strings.Split(r, "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				if _, err := state.ParseRecipient(line); err != nil {
					dec.errorf(elementRange(a.Expr, i, len(list)), "Invalid recipient",
						"recipients[%d] is not usable: %v.", i, err)
					continue
				}
				s.Recipients = append(s.Recipients, line)
			}
		}
		if len(s.Recipients) == 0 && !dec.diags.HasErrors() {
			dec.errorf(a.Expr.Range(), "No recipients",
				"A secrets block needs at least one recipient: an age public key (age1…, from age-keygen) or an SSH public key (ssh-ed25519 …).")
		}
	}
	return s, dec.diags
}

func (l *loader) decodeBackend(b *hcl.Block) (*Backend, hcl.Diagnostics) {
	be := &Backend{Type: b.Labels[0], Range: b.DefRange}
	switch be.Type {
	case "file":
		dec, attrs, diags := l.blockDecoder(b, fileBackendSchema)
		if dec == nil {
			return nil, diags
		}
		if p := dec.strPtr(attrs, "path"); p != nil {
			be.Path = l.pathAttr(dec, attrs["path"], *p)
		}
		return be, dec.diags
	case "etcd":
		return l.decodeEtcdBackend(b, be)
	}
	return nil, hcl.Diagnostics{diagf(b.LabelRanges[0], "Unknown backend type",
		"Backend %q is not one eggo has; use \"file\" (the default: eggo.state beside the configuration) or \"etcd\".", be.Type)}
}

func (l *loader) decodeEtcdBackend(b *hcl.Block, be *Backend) (*Backend, hcl.Diagnostics) {
	dec, attrs, diags := l.blockDecoder(b, etcdBackendSchema)
	if dec == nil {
		return nil, diags
	}
	if eps, ok := dec.stringList(attrs, "endpoints"); ok {
		a := attrs["endpoints"]
		for i, ep := range eps {
			u, err := url.Parse(ep)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				dec.errorf(elementRange(a.Expr, i, len(eps)), "Invalid etcd endpoint",
					"endpoints[%d] = %q is not an URL like https://10.0.0.5:2379.", i, ep)
				continue
			}
			be.Endpoints = append(be.Endpoints, ep)
		}
		if len(eps) == 0 {
			dec.errorf(a.Expr.Range(), "No etcd endpoints", "endpoints needs at least one URL, like https://10.0.0.5:2379.")
		}
	}
	be.Prefix = dec.str(attrs, "prefix", "/eggo/")
	if !strings.HasPrefix(be.Prefix, "/") {
		dec.errorf(attrs["prefix"].Expr.Range(), "Invalid prefix", "prefix must start with \"/\", like \"/eggo/\".")
	}
	if !strings.HasSuffix(be.Prefix, "/") {
		be.Prefix += "/"
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"ca_file", &be.CAFile}, {"cert_file", &be.CertFile}, {"key_file", &be.KeyFile}} {
		if p := dec.strPtr(attrs, f.name); p != nil {
			*f.dst = l.pathAttr(dec, attrs[f.name], *p)
		}
	}
	if (be.CertFile == "") != (be.KeyFile == "") && !dec.isUnknown(attrs, "cert_file", "key_file") {
		dec.errorf(b.DefRange, "Incomplete client certificate", "cert_file and key_file go together: give both or neither.")
	}
	be.LockTTL = dec.duration(attrs, "lock_ttl", 15*time.Second)
	if be.LockTTL < 2*time.Second {
		dec.errorf(attrs["lock_ttl"].Expr.Range(), "Invalid lock_ttl", "lock_ttl must be at least 2s: the lock is kept alive at a third of it.")
	}
	// lock_timeout may be zero (refuse at once, the default), unlike
	// the positive durations elsewhere.
	if s := dec.strPtr(attrs, "lock_timeout"); s != nil {
		d, err := time.ParseDuration(*s)
		if err != nil || d < 0 {
			dec.errorf(attrs["lock_timeout"].Expr.Range(), "Invalid lock_timeout",
				"lock_timeout must be a duration such as \"0s\" (refuse at once) or \"2m\"; got %q.", *s)
		}
		be.LockTimeout = d
	}
	return be, dec.diags
}

func duplicateSingleton(b, prev *hcl.Block) *hcl.Diagnostic {
	return diagf(b.DefRange, "Duplicate "+b.Type+" block",
		"A configuration has at most one %s block, and one is already at %s.", b.Type, source(prev.DefRange))
}

// pathAttr resolves a path attribute like every other local path.
func (l *loader) pathAttr(dec *decoder, a *hcl.Attribute, p string) string {
	abs, err := l.localPath(p)
	if err != nil {
		dec.errorf(a.Expr.Range(), "Invalid path", "%s: %v.", a.Name, err)
	}
	return abs
}

// String describes the backend for messages.
func (b *Backend) String() string {
	if b == nil || b.Type == "file" {
		return "file"
	}
	return fmt.Sprintf("etcd %s (prefix %s)", strings.Join(b.Endpoints, ","), b.Prefix)
}
