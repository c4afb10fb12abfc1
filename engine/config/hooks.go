package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hook"
)

// hookBlock is one hook block on its way into the model.
type hookBlock struct {
	block   *hcl.Block
	content *hcl.BodyContent
	web     *hcl.Block // nil when absent
	prom    *hcl.Block
}

// hookOnly picks the hook blocks out of a file without re-reporting what
// the root schema already reported about the other blocks.
var hookOnly = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "hook", LabelNames: []string{"name"}}}}

// loadHooks decodes the hook blocks into cfg.Hooks. Hooks are
// checked against the whole cluster (the nodes they name, the roles they
// select), so they are decoded last, once everything else has loaded: with
// other errors (cfg == nil) they are left for the next run. Nothing refers
// to a hook, so evaluating them last never misses a dependency.
func (l *loader) loadHooks(cfg *Config) hcl.Diagnostics {
	if cfg == nil || cfg.Cluster == nil {
		return nil
	}
	var diags hcl.Diagnostics
	seen := map[string]*hcl.Block{}
	hooks := []hook.Hook{}
	for _, b := range l.hookBlocks() {
		name := b.Labels[0]
		if !hclsyntax.ValidIdentifier(name) {
			diags = append(diags, invalidName(b, "hook"))
			continue
		}
		if prev, dup := seen[name]; dup {
			diags = append(diags, duplicateBlock(b, "hook", prev))
			continue
		}
		seen[name] = b
		hb, d := parseHook(b)
		diags = append(diags, d...)
		h, d := l.evalHook(hb, cfg.Cluster)
		diags = append(diags, d...)
		hooks = append(hooks, h)
	}
	if diags.HasErrors() {
		return diags
	}
	cfg.Hooks = hooks
	// file() calls inside hook blocks and the scripts themselves are part
	// of what a saved plan was made from.
	cfg.Hash = l.hash()
	return diags
}

// hookBlocks returns the hook blocks of every parsed file, in file name
// order and then declaration order, as the other blocks are declared.
func (l *loader) hookBlocks() hcl.Blocks { return l.blocksOf(hookOnly) }

// parseHook checks a hook's body against its schema and finds its
// provider block.
func parseHook(b *hcl.Block) (*hookBlock, hcl.Diagnostics) {
	content, diags := b.Body.Content(hookSchema)
	hb := &hookBlock{block: b, content: content}
	for _, nb := range content.Blocks {
		slot := &hb.web
		if nb.Type == "prometheus" {
			slot = &hb.prom
		}
		if *slot != nil {
			diags = append(diags, diagf(nb.DefRange, "Duplicate "+nb.Type+" block",
				"Hook %q already has a %s block at %s; a check hook measures one thing.", b.Labels[0], nb.Type, source((*slot).DefRange)))
			continue
		}
		*slot = nb
	}
	return hb, diags
}

// evalHook evaluates one hook block with the values it refers to.
func (l *loader) evalHook(hb *hookBlock, c *resources.Cluster) (hook.Hook, hcl.Diagnostics) {
	b := hb.block
	h := hook.Hook{Name: b.Labels[0], Source: source(b.DefRange), Ranges: hookRanges(hb)}
	refs, diags := l.references(bodyTraversals(b.Body), scopeRules{})
	if diags.HasErrors() {
		return h, diags
	}
	dec := l.decoder(l.scope(refs))
	dec.diags = diags
	attrs := dec.require(hookSchema, hb.content.Attributes)

	h.On = decodeHookEvents(dec, attrs["on"])
	h.Type = decodeHookType(dec, hb)
	checkHookAttributes(dec, hb, h.Type)
	h.Scope = decodeHookScope(dec, attrs)
	decodeHookTargets(dec, hb, &h, c, l.nodesPartial())
	h.OnOperator = decodeHookRunOn(dec, attrs, h.Scope)
	l.refuseHookHere(dec, hb, &h, c)
	decodeHookPolicy(dec, attrs, &h)
	switch h.Type {
	case hook.TypeShell:
		h.Shell = l.decodeShellHook(dec, hb)
		h.Timeout, h.Grace = decodeShellTimes(dec, attrs)
	case hook.TypeWeb, hook.TypePrometheus:
		h.Check = decodeCheckHook(dec, hb, h.Type)
		if h.Check != nil {
			h.Timeout = h.Check.Timeout
		}
	}
	return h, dec.diags
}
