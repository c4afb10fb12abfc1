package command

import (
	"reflect"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/engine/config"
)

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
	// -confine-files reaches the configuration's loading, on every command
	// that plans, and with a saved plan too.
	for _, args := range [][]string{{"validate"}, {"plan"}, {"graph"}, {"apply", "plan.file"}, {"destroy"}} {
		op, err := parseOperation(args[0], append([]string{"-confine-files"}, args[1:]...))
		if err != nil || !op.request(nil).Vars.ConfineFiles {
			t.Errorf("%s -confine-files: %v, confined %v", args[0], err, err == nil && op.request(nil).Vars.ConfineFiles)
		}
	}
}

// Hook flags keep their order across kinds, take one or two dashes, and
// exist only where a plan is made.
func TestParseHookFlags(t *testing.T) {
	op, err := parseOperation("apply", []string{"--prehook=a.sh,worker", "-cluster-posthook", "b", "-prehook=c", "--posthook=d,master", "--cluster-prehook=e"})
	if err != nil {
		t.Fatal(err)
	}
	want := []config.HookFlag{{Name: "prehook", Value: "a.sh,worker"}, {Name: "cluster-posthook", Value: "b"},
		{Name: "prehook", Value: "c"}, {Name: "posthook", Value: "d,master"}, {Name: "cluster-prehook", Value: "e"}}
	if !reflect.DeepEqual(op.Hooks, want) {
		t.Fatalf("hooks %v, want %v", op.Hooks, want)
	}
	if r := op.request(nil); !reflect.DeepEqual(r.CommandHooks, want) {
		t.Errorf("the engine request carries %v", r.CommandHooks)
	}
	for _, cmd := range []string{"plan", "destroy"} {
		if op, err := parseOperation(cmd, []string{"--posthook=x"}); err != nil || len(op.Hooks) != 1 {
			t.Errorf("%s --posthook: %v %v", cmd, op.Hooks, err)
		}
	}
	for _, cmd := range []string{"validate", "graph"} {
		if _, err := parseOperation(cmd, []string{"--prehook=x"}); err == nil {
			t.Errorf("%s accepted --prehook", cmd)
		}
	}
}

func TestParseSavedPlanRefusesHookFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--prehook=x.sh", "plan.file"},
		{"plan.file", "--cluster-posthook=x.sh"},
		{"plan.file", "-posthook", "x.sh,worker"},
	} {
		_, err := parseOperation("apply", args)
		if err == nil || !strings.Contains(err.Error(), "a saved plan runs exactly the hooks it shows") || !strings.Contains(err.Error(), "plan.file") {
			t.Errorf("apply %v: %v", args, err)
		}
	}
	// A flag after the plan file is parsed as a flag; a second argument is not.
	if op, err := parseOperation("apply", []string{"plan.file", "-auto-approve"}); err != nil || op.PlanFile != "plan.file" || !op.AutoApprove {
		t.Errorf("apply plan.file -auto-approve: %+v %v", op, err)
	}
	if _, err := parseOperation("apply", []string{"plan.file", "other"}); err == nil || !strings.Contains(err.Error(), `unexpected argument "other"`) {
		t.Errorf("apply plan.file other: %v", err)
	}
	// After "--" nothing is a flag.
	if _, err := parseOperation("apply", []string{"--", "plan.file", "--prehook=x"}); err == nil || !strings.Contains(err.Error(), `unexpected argument "--prehook=x"`) {
		t.Errorf("apply -- plan.file --prehook=x: %v", err)
	}
}
