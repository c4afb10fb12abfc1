package config

import (
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/state"
)

// Secrets is the secrets block: the public keys the state's secrets are
// encrypted to.
type Secrets struct {
	Recipients []string
	Range      hcl.Range
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
			be, d := l.decodeBackend(b, cfg.Cluster.Name)
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
