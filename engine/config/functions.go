package config

import (
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// functions is the function table of one Load. file and templatefile are
// bound to the configuration directory, so they are made per loader.
func (l *loader) functions() map[string]function.Function {
	funcs := map[string]function.Function{
		// numbers
		"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
		"max": stdlib.MaxFunc, "min": stdlib.MinFunc, "parseint": stdlib.ParseIntFunc,
		"pow": stdlib.PowFunc, "signum": stdlib.SignumFunc, "log": stdlib.LogFunc,
		// strings
		"chomp": stdlib.ChompFunc, "format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc,
		"indent": stdlib.IndentFunc, "join": stdlib.JoinFunc, "lower": stdlib.LowerFunc,
		"upper": stdlib.UpperFunc, "regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc,
		"replace": replaceFunc, "split": stdlib.SplitFunc, "strrev": stdlib.ReverseFunc,
		"substr": stdlib.SubstrFunc, "title": stdlib.TitleFunc, "trim": stdlib.TrimFunc,
		"trimprefix": stdlib.TrimPrefixFunc, "trimsuffix": stdlib.TrimSuffixFunc,
		"trimspace": stdlib.TrimSpaceFunc,
		// collections
		"chunklist": stdlib.ChunklistFunc, "coalesce": coalesceFunc,
		"coalescelist": stdlib.CoalesceListFunc, "compact": stdlib.CompactFunc,
		"concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc, "distinct": stdlib.DistinctFunc,
		"element": stdlib.ElementFunc, "index": indexFunc, "flatten": stdlib.FlattenFunc, "keys": stdlib.KeysFunc,
		"length": lengthFunc, "lookup": stdlib.LookupFunc, "merge": stdlib.MergeFunc,
		"range": stdlib.RangeFunc, "reverse": stdlib.ReverseListFunc, "setintersection": stdlib.SetIntersectionFunc,
		"setproduct": stdlib.SetProductFunc, "setsubtract": stdlib.SetSubtractFunc, "setunion": stdlib.SetUnionFunc,
		"slice": stdlib.SliceFunc, "sort": stdlib.SortFunc, "values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
		// conversions
		"tostring": stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
		"tobool": stdlib.MakeToFunc(cty.Bool), "toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)), "tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		// encodings and hashes
		"jsonencode": stdlib.JSONEncodeFunc, "jsondecode": stdlib.JSONDecodeFunc, "csvdecode": stdlib.CSVDecodeFunc,
		"base64encode": base64EncodeFunc, "base64decode": base64DecodeFunc,
		"sha256": sha256Func, "base64sha256": base64SHA256Func,
		// networks
		"cidrhost": cidrHostFunc, "cidrsubnet": cidrSubnetFunc, "cidrnetmask": cidrNetmaskFunc,
		// errors
		"try": tryFunc, "can": tryfunc.CanFunc,
		// files
		"file": l.fileFunc(), "filebase64": l.fileBase64Func(),
	}
	// templatefile sees every function but itself: a template rendering
	// templates could recurse without end.
	inner := make(map[string]function.Function, len(funcs))
	for k, v := range funcs {
		inner[k] = v
	}
	funcs["templatefile"] = l.templateFileFunc(inner)
	return funcs
}
