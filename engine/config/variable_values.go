package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

const envPrefix = "EGGO_VAR_"

// assigned is one value given to a variable and where it came from.
type assigned struct {
	val  cty.Value
	rng  *hcl.Range // nil for -var and environment values
	from string     // "-var", "EGGO_VAR_x", "vars.hcl:3", for messages
}

// resolveVariables gives every variable its value: default, then
// environment, then -var-file files in order, then -var options in order;
// the last one wins.
func (l *loader) resolveVariables(in VarInput) hcl.Diagnostics {
	values := map[string]assigned{}
	diags := l.envValues(in.Env, values)
	for _, path := range in.VarFiles {
		diags = append(diags, l.readVarFile(path, values)...)
	}
	diags = append(diags, l.optionValues(in.Vars, values)...)
	return append(diags, l.assignVariables(values)...)
}

// envValues reads EGGO_VAR_name values of declared variables.
func (l *loader) envValues(env []string, values map[string]assigned) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, kv := range env {
		name, raw, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, envPrefix) {
			continue
		}
		name = strings.TrimPrefix(name, envPrefix)
		v, declared := l.varByName[name]
		if !declared {
			continue // like Terraform: the environment may hold values for other configurations
		}
		val, d := v.parseText(raw)
		diags = append(diags, d...)
		if !d.HasErrors() {
			values[name] = assigned{val: val, from: envPrefix + name}
		}
	}
	return diags
}

// optionValues reads the -var NAME=VALUE options, in order.
func (l *loader) optionValues(vars []string, values map[string]assigned) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for i, kv := range vars {
		name, raw, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			// The text may be a secret: say which option, not what it holds.
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid -var option",
				Detail:   fmt.Sprintf("-var option number %d is not NAME=VALUE. Write it as -var 'name=value'.", i+1),
			})
			continue
		}
		v, declared := l.varByName[name]
		if !declared {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Value for undeclared variable",
				Detail: fmt.Sprintf("-var sets %s, but the configuration in %s declares no such variable. "+
					"Declare it with a variable \"NAME\" {} block, or remove the option.", quoted(name), l.dir),
			})
			continue
		}
		val, d := v.parseText(raw)
		diags = append(diags, d...)
		if !d.HasErrors() {
			values[name] = assigned{val: val, from: "-var"}
		}
	}
	return diags
}

// assignVariables gives each variable its value (or its default), converted
// to its type and marked when sensitive, and builds var.*.
func (l *loader) assignVariables(values map[string]assigned) hcl.Diagnostics {
	var diags hcl.Diagnostics
	attrs := make(map[string]cty.Value, len(l.variables))
	for _, v := range l.variables {
		a, ok := values[v.name]
		switch {
		case ok:
			cv, err := v.convert(a.val)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid value for input variable",
					Detail:   fmt.Sprintf("The value for variable %q from %s does not match its type: %s.", v.name, a.from, err),
					Subject:  a.rng,
				})
				continue
			}
			v.value = cv
		case v.def != cty.NilVal:
			v.value = v.def
		case l.validate:
			// What depends on it goes unchecked (see partial.go).
			v.value = cty.UnknownVal(v.typ)
			l.unset = append(l.unset, v.name)
		default:
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "No value for required variable",
				Detail: fmt.Sprintf("The variable %q has no default, so it needs a value: -var '%s=...', "+
					"a -var-file, or the environment variable %s%s.", v.name, v.name, envPrefix, v.name),
				Subject: v.block.DefRange.Ptr(),
			})
			continue
		}
		if v.sensitive {
			v.value = v.value.Mark(sensitive)
		}
		attrs[v.name] = v.value
	}
	l.varObject = cty.ObjectVal(attrs)
	return diags
}

// parseText turns a value given as text into a value for v.
func (v *variable) parseText(raw string) (cty.Value, hcl.Diagnostics) {
	if v.parseLiteral() {
		return cty.StringVal(raw), nil
	}
	name := fmt.Sprintf("<value for var.%s>", v.name)
	if diags := checkNesting([]byte(raw), name, false); diags.HasErrors() {
		return cty.NilVal, diags
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), name, hcl.InitialPos)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	val, diags := expr.Value(nil)
	return val, diags
}

// readVarFile reads one -var-file (HCL, or JSON when it ends in .json).
// Assignments to undeclared variables are warnings, as in Terraform: a
// shared file may serve several configurations.
func (l *loader) readVarFile(path string, values map[string]assigned) hcl.Diagnostics {
	src, err := os.ReadFile(path)
	if err != nil {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read variables file",
			Detail:   fmt.Sprintf("Reading -var-file %s failed: %s.", path, err),
		}}
	}
	l.sources[path] = src
	var f *hcl.File
	var diags hcl.Diagnostics
	if strings.HasSuffix(path, ".json") {
		if diags = checkJSONNesting(src, path); !diags.HasErrors() {
			f, diags = l.parser.ParseJSON(src, path)
		}
	} else if diags = checkNesting(src, path, false); !diags.HasErrors() {
		f, diags = l.parser.ParseHCL(src, path)
	}
	if diags.HasErrors() {
		return diags
	}
	attrs, d := f.Body.JustAttributes()
	diags = append(diags, d...)
	for name, a := range attrs {
		if _, declared := l.varByName[name]; !declared {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Value for undeclared variable",
				Detail:   fmt.Sprintf("%s sets %s, but the configuration declares no such variable; the value is ignored.", path, quoted(name)),
				Subject:  a.NameRange.Ptr(),
			})
			continue
		}
		val, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		rng := a.Expr.Range()
		values[name] = assigned{val: val, rng: &rng, from: source(rng)}
	}
	return diags
}
