package hook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/eggo-project/eggo/providers/shell/shelltest"
	"github.com/eggo-project/eggo/resources/hookrun"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// TestHookRunQuotesItsValues runs a shell hook the way the engine builds
// it (Env, ClusterArgs, ShellSpec) for a hostile cluster and node over a
// transport that records instead of running, and parses every command
// line and the plan file the host sources with a real shell parser: cluster
// labels and annotations (the hook's arguments), every EGGO_* value, a
// file's destination, the temporary directory, the hook's and script's
// names and an interpreter's argument are each one literal word.
// hookrun's TestEnvAndArgsReachTheScriptVerbatim runs such values through
// a real shell over SSH and locally.
func TestHookRunQuotesItsValues(t *testing.T) {
	values, fields := map[string]string{}, map[string]string{}
	v := func(field string) string {
		tag := fmt.Sprintf("H%03d", len(values)+100)
		values[tag], fields[tag] = shelltest.Hostile(tag), field
		return values[tag]
	}
	c := ClusterInfo{Name: v("cluster name"), APIEndpoint: v("api endpoint"), ConfigDir: "/" + v("config_dir"),
		Labels:      map[string]string{v("cluster label key"): v("cluster label value")},
		Annotations: map[string]string{v("annotation key"): v("annotation value")}}
	n := Node{Name: v("node name"), IP: v("node address"), Arch: v("node arch"), Roles: []string{v("node role")}}
	src := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(src, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := &Hook{Name: v("hook name"), Shell: &Shell{
		Scripts: []hookrun.Script{{Name: v("script name"), Content: []byte("#!/bin/sh " + v("interpreter argument") + "\necho hi\n")}},
		Files:   []hookrun.FileCopy{{Src: src, Dst: "/" + v("file dst dir") + "/f"}}, // the file itself: the transport's upload (providers' audit)
	}}
	spec := h.ShellSpec(Deploy)
	spec.Env = Env(c, n, Event{Pre, Deploy})
	spec.Args = ClusterArgs(c)
	spec.TempDir = "/" + v("temporary directory")

	rec := &resourcestest.Recorder{}
	hookrun.Run(context.Background(), rec.Conn(n.Name), n.Name, spec) // fails: nothing reports a status
	found := rec.AuditQuoting(t, values, func(u resourcestest.RecordedUpload) bool { return filepath.Base(u.Dst) == "plan" })
	for tag, field := range fields {
		if found[tag] == 0 {
			t.Errorf("%s (%s) never reached the host's shell: the audit lost its coverage", tag, field)
		}
	}
}
