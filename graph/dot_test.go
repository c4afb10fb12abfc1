package graph

import "testing"

func TestDOT(t *testing.T) {
	g := build(t,
		[]string{"service.api", "pki.ca", `cert.api["m0"]`, "host.m0"},
		[]edge{
			{"service.api", `cert.api["m0"]`},
			{"service.api", "host.m0"},
			{`cert.api["m0"]`, "pki.ca"},
		})
	attrs := func(name string) map[string]string {
		switch name {
		case "service.api":
			return map[string]string{"shape": "box", "label": "api\nserver", "color": "red"}
		case "pki.ca":
			return map[string]string{"tooltip": `C:\ca "root"`, "my-attr": "x"}
		}
		return nil
	}

	tests := []struct {
		name  string
		attrs func(string) map[string]string
		want  string
	}{
		{"with attributes", attrs, `digraph eggo {
  "service.api" [color="red", label="api\nserver", shape="box"];
  "pki.ca" ["my-attr"="x", tooltip="C:\\ca \"root\""];
  "cert.api[\"m0\"]";
  "host.m0";
  "cert.api[\"m0\"]" -> "service.api";
  "host.m0" -> "service.api";
  "pki.ca" -> "cert.api[\"m0\"]";
}
`},
		{"nil attrs", nil, `digraph eggo {
  "service.api";
  "pki.ca";
  "cert.api[\"m0\"]";
  "host.m0";
  "cert.api[\"m0\"]" -> "service.api";
  "host.m0" -> "service.api";
  "pki.ca" -> "cert.api[\"m0\"]";
}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 5 { // map iteration must not leak into the output
				if got := g.DOT(tt.attrs); got != tt.want {
					t.Fatalf("DOT() =\n%s\nwant\n%s", got, tt.want)
				}
			}
		})
	}
}
