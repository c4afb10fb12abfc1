package config

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/resources"
)

// The model carries where each block and the attributes that checks after
// loading blame were written (resources.SourceRanges), so an error found
// while the kinds expand the model is shown with its source line, as a
// diagnostic of this package is. resources does not import HCL: these
// functions copy HCL's ranges into the model's own type.

// sourceRange is r as the model holds it.
func sourceRange(r hcl.Range) resources.SourceRange {
	return resources.SourceRange{
		Filename: r.Filename,
		Start:    resources.Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
		End:      resources.Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
	}
}

// blockRanges locates a block (its header, as block diagnostics do) and
// those of names that attrs holds (their values, as attribute diagnostics
// underline them).
func blockRanges(b *hcl.Block, attrs hcl.Attributes, names ...string) resources.SourceRanges {
	s := resources.SourceRanges{Block: sourceRange(b.DefRange), Attrs: map[string]resources.SourceRange{}}
	addAttrRanges(s.Attrs, "", attrs, names)
	return s
}

func addAttrRanges(into map[string]resources.SourceRange, prefix string, attrs hcl.Attributes, names []string) {
	for _, n := range names {
		if a, ok := attrs[n]; ok {
			into[prefix+n] = sourceRange(a.Expr.Range())
		}
	}
}

// addNestedRanges adds the attributes names of a nested block (nil: not
// written) as "block.name". Its body was decoded, and any problem in it
// reported, elsewhere: only the ranges are read here.
func addNestedRanges(into map[string]resources.SourceRange, b *hcl.Block, names ...string) {
	if b == nil {
		return
	}
	schema := &hcl.BodySchema{}
	for _, n := range names {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: n})
	}
	content, _, _ := b.Body.PartialContent(schema)
	if content != nil {
		addAttrRanges(into, b.Type+".", content.Attributes, names)
	}
}

// clusterRanges locates the cluster block and what the kinds check of it.
func clusterRanges(cb *clusterBlock) resources.SourceRanges {
	s := blockRanges(cb.block, cb.content.Attributes,
		"kubernetes_version", "packages", "config_dir", "api_endpoint", "extra_args", "labels")
	addNestedRanges(s.Attrs, cb.network, "pod_cidr", "service_cidr", "dns_domain")
	addNestedRanges(s.Attrs, cb.addons, "coredns", "manifests", "kube_proxy")
	return s
}

// nodeRanges locates a node block and what the kinds check of a node; one
// value for all the block's instances. The host_key of the node's own
// connection block is what a plan blames when the state pins another key
// (the top-level block's is not: the block is then blamed).
func nodeRanges(nb *nodeBlock) resources.SourceRanges {
	s := blockRanges(nb.block, nb.content.Attributes, "name", "address", "roles", "labels", "arch")
	if nb.conn != nil {
		addNestedRanges(s.Attrs, nb.conn.block, "host_key")
	}
	return s
}

// hookRanges locates a hook block and the attributes a hook's placement
// and run may blame.
func hookRanges(hb *hookBlock) resources.SourceRanges {
	return blockRanges(hb.block, hb.content.Attributes, "on", "type", "scope", "roles", "nodes", "source", "files")
}
