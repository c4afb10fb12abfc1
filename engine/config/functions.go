package config

import (
	"errors"
	"slices"

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
	for name, f := range funcs {
		if name != "try" && name != "can" { // they show their arguments' own diagnostics
			funcs[name] = hideSensitiveErrors(f)
		}
	}
	// templatefile sees every function but itself: a template rendering
	// templates could recurse without end.
	inner := make(map[string]function.Function, len(funcs))
	for k, v := range funcs {
		inner[k] = v
	}
	funcs["templatefile"] = hideSensitiveErrors(l.templateFileFunc(inner))
	return funcs
}

// hideSensitiveErrors is f, except that when an argument is sensitive its
// error does not say why: go-cty hands a function its arguments unmarked,
// so its error ("invalid CIDR address: …") would repeat a sensitive value
// in clear. A file's error (fileError) names only its path, the first
// argument, and is kept unless that path is the sensitive one.
func hideSensitiveErrors(f function.Function) function.Function {
	open := func(p function.Parameter) function.Parameter {
		// f itself applies its own rules: the wrapper lets everything through.
		p.AllowMarked, p.AllowUnknown, p.AllowNull, p.AllowDynamicType = true, true, true, true
		return p
	}
	params := f.Params()
	for i := range params {
		params[i] = open(params[i])
	}
	var varParam *function.Parameter
	if vp := f.VarParam(); vp != nil {
		p := open(*vp)
		varParam = &p
	}
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      params,
		VarParam:    varParam,
		Type: func(args []cty.Value) (cty.Type, error) {
			ty, err := f.ReturnTypeForValues(args)
			return ty, hideSensitive(err, args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, err := f.Call(args)
			return v, hideSensitive(err, args)
		},
	})
}

func hideSensitive(err error, args []cty.Value) error {
	var fe *fileError
	if err == nil || !slices.ContainsFunc(args, cty.Value.ContainsMarked) || errors.As(err, &fe) && !args[0].ContainsMarked() {
		return err
	}
	const msg = "an argument is " + hiddenValue + ", and why the call failed is not shown: it could repeat it"
	var ae function.ArgError
	if errors.As(err, &ae) {
		return function.NewArgErrorf(ae.Index, msg)
	}
	return errors.New(msg)
}
