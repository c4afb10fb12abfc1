package config

import (
	"io"

	"github.com/hashicorp/hcl/v2"
)

// WriteDiagnostics prints diagnostics with HCL's own writer: the message,
// the file and line, and the source snippet with the range underlined.
// files is Config.Files.
func WriteDiagnostics(w io.Writer, files map[string][]byte, diags hcl.Diagnostics, color bool, width uint) error {
	hclFiles := make(map[string]*hcl.File, len(files))
	for name, src := range files {
		hclFiles[name] = &hcl.File{Bytes: src}
	}
	return hcl.NewDiagnosticTextWriter(w, hclFiles, width, color).WriteDiagnostics(diags)
}
