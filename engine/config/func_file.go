package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// readConfigFile reads a file named in the configuration (relative to the
// configuration directory) and remembers its content for Config.Hash: a
// changed certificate template must invalidate a saved plan too. Under
// confinement the file must lie in the configuration directory or the
// bundle (confine.go). Its errors name the path, never the content.
func (l *loader) readConfigFile(p string) ([]byte, error) {
	abs, err := l.localPath(p)
	if err != nil {
		return nil, &fileError{err.Error()}
	}
	open, err := l.confined(p, abs)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(open)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fileErrorf("no file exists at %s (paths are relative to the configuration directory %s)", clipPath(p), l.dir)
	}
	if err != nil {
		return nil, fileErrorf("cannot read %s: %s", clipPath(p), reason(err))
	}
	l.readFiles[abs] = b
	return b, nil
}

// fileValue is v, the value of a file function that read b, marked
// sensitive when b holds a private key, an identity or a token: it then
// reaches no plan, log or error (sensitive.go).
func fileValue(v cty.Value, b []byte) cty.Value {
	if secretKind(string(b)) != "" {
		return v.Mark(sensitive)
	}
	return v
}

func (l *loader) fileFunc() function.Function {
	return function.New(&function.Spec{
		Description: "Reads a UTF-8 text file of the configuration.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, err := l.readConfigFile(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			if !utf8.Valid(b) {
				return cty.UnknownVal(cty.String), fileErrorf("contents of %s are not valid UTF-8; use filebase64 for binary files", clipPath(args[0].AsString()))
			}
			return fileValue(cty.StringVal(string(b)), b), nil
		},
	})
}

func (l *loader) fileBase64Func() function.Function {
	return function.New(&function.Spec{
		Description: "Reads a file of the configuration and returns its content in Base64.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, err := l.readConfigFile(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			return fileValue(cty.StringVal(base64.StdEncoding.EncodeToString(b)), b), nil
		},
	})
}

// templateFileFunc renders a file as an HCL template ("${...}", "%{for}")
// with exactly the given variables in scope, like Terraform's templatefile.
func (l *loader) templateFileFunc(funcs map[string]function.Function) function.Function {
	funcs["templatefile"] = function.New(&function.Spec{
		Params: []function.Parameter{
			{Name: "path", Type: cty.String},
			{Name: "vars", Type: cty.DynamicPseudoType},
		},
		Type: function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			return cty.DynamicVal, fmt.Errorf("cannot call templatefile from inside a template rendered by templatefile")
		},
	})
	return function.New(&function.Spec{
		Description: "Renders a template file of the configuration with the given variables.",
		Params: []function.Parameter{
			{Name: "path", Type: cty.String},
			{Name: "vars", Type: cty.DynamicPseudoType},
		},
		Type: function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			name := args[0].AsString()
			vars, err := templateVars(args[1])
			if err != nil {
				return cty.DynamicVal, function.NewArgError(1, err)
			}
			src, err := l.readConfigFile(name)
			if err != nil {
				return cty.DynamicVal, err
			}
			if err := nestingError("template "+name, src, true); err != nil {
				return cty.DynamicVal, err
			}
			expr, diags := hclsyntax.ParseTemplate(src, name, hcl.InitialPos)
			if diags.HasErrors() {
				return cty.DynamicVal, templateError(name, src, diags)
			}
			for _, t := range expr.Variables() {
				if _, ok := vars[t.RootName()]; !ok {
					return cty.DynamicVal, fmt.Errorf("template %s refers to %s at line %d, but vars has no such key",
						name, quoted(t.RootName()), t.SourceRange().Start.Line)
				}
			}
			val, diags := expr.Value(&hcl.EvalContext{Variables: vars, Functions: funcs})
			if diags.HasErrors() {
				return cty.DynamicVal, templateError(name, src, diags)
			}
			return fileValue(val, src), nil
		},
	})
}

// templateError is a template's parse or evaluation error, not shown
// when the template holds a credential: HCL's messages may quote it.
func templateError(name string, src []byte, diags hcl.Diagnostics) error {
	if kind := secretKind(string(src)); kind != "" {
		return fmt.Errorf("template %s holds %s, so its errors are not shown: %s", clipPath(name), kind, hiddenValue)
	}
	return fmt.Errorf("template %s: %s", name, diags.Error())
}

func templateVars(v cty.Value) (map[string]cty.Value, error) {
	if v.IsNull() {
		return map[string]cty.Value{}, nil
	}
	ty := v.Type()
	if !ty.IsMapType() && !ty.IsObjectType() {
		return nil, fmt.Errorf("vars must be a map or an object, not %s", ty.FriendlyName())
	}
	out := map[string]cty.Value{}
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		name := k.AsString()
		if !hclsyntax.ValidIdentifier(name) {
			return nil, fmt.Errorf("invalid template variable name %s: it must start with a letter and contain only letters, digits, underscores and dashes", quoted(name))
		}
		out[name] = ev
	}
	return out, nil
}
