package hook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hookrun"
)

// A hook on the machine running eggo keeps its scripts under the
// operator's TMPDIR, as any program there does; a remote host's stay in
// its /tmp (the hookrun default).
func TestShellHookOnThisMachineUsesTMPDIR(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	spec := hookrun.Spec{Hook: "where", Scripts: []hookrun.Script{{Name: "where.sh", Content: []byte("#!/bin/sh\necho \"script at $0\"\n")}}}
	for _, n := range []Node{OperatorNode, {Name: "n1", IP: "127.0.0.1", Connection: map[string]any{"type": "local"}}} {
		out := RunShell(context.Background(), rc, n, spec)
		if out.Err != nil || len(out.Attempts) != 1 {
			t.Fatalf("%s: %+v", n.Name, out)
		}
		got := out.Attempts[0].Output
		if !strings.Contains(got, "script at "+filepath.Join(tmp, "eggo-hook.")) {
			t.Errorf("%s: the script ran outside TMPDIR %s: %q", n.Name, tmp, got)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s: the hook left %v in TMPDIR", n.Name, left)
		}
	}
}
