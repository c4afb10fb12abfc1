package command

import "testing"

// Each command accepts only the flags it documents.
func TestParseOperationFlagsPerCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		args []string
		ok   bool
	}{
		{"validate", []string{"-var", "a=b", "-json"}, true},
		{"validate", []string{"-target=host.a"}, false},
		{"validate", []string{"-state=x"}, false},
		{"plan", []string{"-out=p", "-detailed-exitcode", "-destroy", "-target=host.a"}, true},
		{"graph", []string{"-destroy", "-refresh=false"}, true},
		{"graph", []string{"-out=p"}, false},
		{"apply", []string{"-auto-approve", "-parallelism=2"}, true},
		{"apply", []string{"-out=p"}, false},
		{"apply", []string{"-parallelism=0"}, false},
		{"apply", []string{"-var", "a=b", "plan.file"}, false},
		{"destroy", []string{"-auto-approve"}, true},
	} {
		_, err := parseOperation(tc.cmd, tc.args)
		if (err == nil) != tc.ok {
			t.Errorf("%s %v: err = %v, want ok=%v", tc.cmd, tc.args, err, tc.ok)
		}
	}
}
