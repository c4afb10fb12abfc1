package hookrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
)

func TestEnvAndArgsReachTheScriptVerbatim(t *testing.T) {
	transports(t, func(t *testing.T, conn providers.Conn) {
		out := t.TempDir()
		pwned := filepath.Join(out, "PWNED")
		nasty := `'$(touch ` + pwned + `)"` + "`touch " + pwned + "` $HOME\nsecond line"
		// The script also counts the command lines on the host that show
		// EGGO_NODE_NAME's value (awk reads it from the environment, so its
		// own command line does not): values must not travel in argv.
		s := spec(t, "#!/bin/sh\nenv -0 > "+shell.Quote(out+"/env")+"\nprintf '%s\\0' \"$@\" > "+shell.Quote(out+"/args")+"\n"+
			`for f in /proc/[0-9]*/cmdline; do tr '\0' ' ' <"$f"; echo; done | awk 'index($0, ENVIRON["EGGO_NODE_NAME"])' > `+shell.Quote(out+"/argv")+"\n")
		s.Env = map[string]string{
			"EGGO_CLUSTER_ID":           "demo",
			"EGGO_CLUSTER_API_ENDPOINT": "10.77.0.10:6443",
			"EGGO_CLUSTER_CONFIG_DIR":   "/etc/kubernetes",
			"EGGO_NODE_IP":              "10.77.0.21",
			"EGGO_NODE_NAME":            "w0-" + marker(t),
			"EGGO_NODE_ARCH":            "amd64",
			"EGGO_NODE_ROLE":            "worker",
			"EGGO_HOOK_TYPE":            "prehook",
			"EGGO_OPERATOR":             "join",
			"EGGO_NASTY":                nasty,
		}
		s.Args = []string{"location=xa", "node.alpha.kubernetes.io/test=hello world", "evil=" + nasty}

		o := Run(context.Background(), conn, "node-a", s)
		if o.Decision != DecisionOK || o.Err != nil || len(o.Attempts) != 1 {
			t.Fatalf("outcome %+v", o)
		}
		env := map[string]string{}
		for _, kv := range strings.Split(readFile(t, out+"/env"), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
		want := map[string]string{"EGGO_HOOK_NAME": "prepare", "EGGO_HOOK_ATTEMPT": "1", "EGGO_HOOK_SCRIPT": "prejoin.sh"}
		for k, v := range s.Env {
			want[k] = v
		}
		for k, v := range want {
			if env[k] != v {
				t.Errorf("%s = %q, want %q", k, env[k], v)
			}
		}
		args := strings.Split(strings.TrimSuffix(readFile(t, out+"/args"), "\x00"), "\x00")
		if strings.Join(args, "|") != strings.Join(s.Args, "|") {
			t.Errorf("args %q, want %q", args, s.Args)
		}
		if argv := readFile(t, out+"/argv"); argv != "" {
			t.Errorf("an environment value shows in command lines on the host: %s", argv)
		}
		if _, err := os.Stat(pwned); err == nil {
			t.Errorf("a value was executed by the shell")
		}
		tempDirEmpty(t, s.TempDir)
	})
}

func TestShebangChoosesTheInterpreter(t *testing.T) {
	transports(t, func(t *testing.T, conn providers.Conn) {
		out := filepath.Join(t.TempDir(), "out")
		s := spec(t, "#!/bin/bash -e\n[[ -n $BASH_VERSION ]] && echo bash > "+shell.Quote(out)+"\n")
		s.Scripts = append(s.Scripts, Script{Name: "plain", Content: []byte("echo sh >> " + shell.Quote(out) + "\n")})
		if o := Run(context.Background(), conn, "node-a", s); o.Decision != DecisionOK {
			t.Fatalf("outcome %+v", o)
		}
		if got := readFile(t, out); got != "bash\nsh\n" {
			t.Errorf("got %q", got)
		}
	})
}

func TestOutputTailKeptOnFailure(t *testing.T) {
	transports(t, func(t *testing.T, conn providers.Conn) {
		s := spec(t, "echo out1; echo err1 >&2; echo out2\nhead -c 40000 /dev/zero | tr '\\0' x\necho\necho 'LAST LINE' >&2\nexit 7\n")
		o := Run(context.Background(), conn, "node-a", s)
		if o.Decision != DecisionAbort || len(o.Attempts) != 1 {
			t.Fatalf("outcome %+v", o)
		}
		a := o.Attempts[0]
		if a.ExitCode != 7 || a.Signal != "" || a.TimedOut || a.Script != "prejoin.sh" {
			t.Errorf("attempt %+v", a)
		}
		if len(a.Output) > OutputTailBytes || !strings.HasSuffix(a.Output, "LAST LINE") || strings.Contains(a.Output, "out1") {
			t.Errorf("output has %d bytes, ends %q", len(a.Output), a.Output[max(0, len(a.Output)-20):])
		}
		msg := o.Err.Error()
		for _, want := range []string{`hook "prepare"`, "node-a", "prejoin.sh", "exited 7", "LAST LINE"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error lacks %q: %.300s", want, msg)
			}
		}
		if len(msg) > errorTailBytes+300 {
			t.Errorf("error is %d bytes long", len(msg))
		}

		// Small output keeps stdout and stderr interleaved as written.
		s = spec(t, "echo out1; echo err1 >&2; echo out2; exit 1\n")
		o = Run(context.Background(), conn, "node-a", s)
		if got := o.Attempts[0].Output; got != "out1\nerr1\nout2" {
			t.Errorf("output %q", got)
		}
	})
}
