package shelltest

import (
	"fmt"
	"testing"

	"github.com/eggo-project/eggo/providers/shell"
)

// The check accepts a value quoted by shell.Quote wherever it sits in a
// script, and refuses every way a value can escape its word.
func TestCheck(t *testing.T) {
	v := Hostile("H01")
	values := map[string]string{"H01": v}
	good := []string{
		"rm -f -- " + shell.Quote(v),
		"rm -f -- " + shell.Quote("/etc/"+v+"/x") + " && echo ok",
		"kubectl label node " + shell.Quote("k="+v) + " --overwrite >/dev/null",
		`printf '%s\n' "$(systemctl is-active ` + shell.Quote(v) + `)"`,
		"sh -c " + shell.Quote("echo "+shell.Quote(v)) + " eggo",
		"cat <<'EOF'\n" + v + "\nEOF\n",
		"x=" + shell.Quote(v) + "; export y=" + shell.Quote(v),
		"[ -f " + shell.Quote(v) + " ] || echo " + shell.Quote(v) + " >" + shell.Quote("/tmp/"+v),
	}
	for _, s := range good {
		found := map[string]int{}
		if p := Check(s, values, found); len(p) > 0 || found["H01"] == 0 {
			t.Errorf("%s: problems %q, found %d", s, p, found["H01"])
		}
	}
	bad := map[string]string{
		"unquoted":             "rm -f -- " + v,
		"double quotes":        `rm -f -- "` + v + `"`,
		"Go's %q":              fmt.Sprintf("rm -f -- %q", v),
		"in a script of sh -c": "sh -c " + shell.Quote("echo "+v) + " eggo",
		"in bash -c, quoted":   `bash -c 'echo "` + v + `"'`,
		"unquoted heredoc":     "cat <<EOF\n" + v + "\nEOF\n",
		"in a comment":         "true # " + shell.Quote(v),
		"a function name":      "H01() { :; }",
		"a redirection":        "echo x >/tmp/" + v,
		"cut by a quote":       "echo '" + v + "'",
	}
	for name, s := range bad {
		if p := Check(s, values, map[string]int{}); len(p) == 0 {
			t.Errorf("%s: %s passed the check", name, s)
		}
	}
}
