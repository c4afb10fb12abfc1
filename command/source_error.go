package command

import (
	"errors"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
)

// showError reports an error that ends a command once the configuration
// has loaded (l). One that a place of the configuration is at fault for —
// a resources.SourceError, found while the kinds expand the model or the
// engine plans — is shown as the configuration's own diagnostics are:
// the text view quotes its source line with the attribute underlined, the
// JSON view gives its range. Anything else is one error line.
func showError(v View, err error, l *engine.Loaded) {
	if d := sourceDiagnostic(err); d != nil {
		v.Diagnostics(hcl.Diagnostics{d}, l)
		return
	}
	v.Error(err.Error())
}

// sourceDiagnostic is err as an HCL diagnostic, or nil when it points at
// no place of the configuration.
func sourceDiagnostic(err error) *hcl.Diagnostic {
	var se *resources.SourceError
	if !errors.As(err, &se) || se.Range.IsZero() {
		return nil
	}
	r := se.Range
	subject := hcl.Range{
		Filename: r.Filename,
		Start:    hcl.Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
		End:      hcl.Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
	}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: se.Summary, Detail: se.Detail, Subject: &subject}
}
