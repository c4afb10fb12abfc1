package hookrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
)

func TestDirectoryRunsInLexicalOrderAndStopsAtAFailure(t *testing.T) {
	src := t.TempDir()
	out := filepath.Join(t.TempDir(), "order")
	log := func(name string) string { return "echo " + name + " >> " + shell.Quote(out) + "\n" }
	writeFile(t, filepath.Join(src, "20-b.sh"), log("20-b"), 0o644)
	writeFile(t, filepath.Join(src, "10-a.sh"), log("10-a"), 0o644)
	writeFile(t, filepath.Join(src, "30-c.sh"), log("30-c"), 0o644)
	writeFile(t, filepath.Join(src, ".hidden"), log("hidden"), 0o644)
	if err := os.Mkdir(filepath.Join(src, "15-sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(src, "15-sub", "00-nested.sh"), log("nested"), 0o644)
	scripts, err := LoadSource(src)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range scripts {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "10-a.sh 20-b.sh 30-c.sh" {
		t.Fatalf("loaded %v", names)
	}

	transports(t, func(t *testing.T, conn providers.Conn) {
		_ = os.Remove(out)
		s := spec(t, "")
		s.Scripts = scripts
		if o := Run(context.Background(), conn, "node-a", s); o.Decision != DecisionOK || o.Attempts[0].Script != "30-c.sh" {
			t.Fatalf("outcome %+v", o)
		}
		if got := readFile(t, out); got != "10-a\n20-b\n30-c\n" {
			t.Errorf("ran %q", got)
		}

		_ = os.Remove(out)
		failing := append([]Script(nil), scripts...)
		failing[1].Content = []byte(log("20-b") + "exit 4\n")
		s.Scripts = failing
		o := Run(context.Background(), conn, "node-a", s)
		if o.Decision != DecisionAbort || o.Attempts[0].Script != "20-b.sh" || o.Attempts[0].ExitCode != 4 {
			t.Fatalf("outcome %+v", o)
		}
		if !strings.Contains(o.Err.Error(), "script 20-b.sh exited 4") {
			t.Errorf("error %v", o.Err)
		}
		if got := readFile(t, out); got != "10-a\n20-b\n" {
			t.Errorf("ran %q: a failure must stop the hook", got)
		}
		tempDirEmpty(t, s.TempDir)
	})
}

func TestPolicies(t *testing.T) {
	transports(t, func(t *testing.T, conn providers.Conn) {
		failing := "echo failing; exit 3\n"

		s := spec(t, failing)
		s.Policy = Continue
		o := Run(context.Background(), conn, "node-a", s)
		if o.Decision != DecisionContinue || len(o.Attempts) != 1 || o.Err == nil || !strings.Contains(o.Err.Error(), "exited 3") {
			t.Errorf("continue: %+v", o)
		}

		s = spec(t, failing)
		s.Policy, s.Attempts, s.Backoff = Retry, 3, 150*time.Millisecond
		o = Run(context.Background(), conn, "node-a", s)
		if o.Decision != DecisionAbort || len(o.Attempts) != 3 || !strings.Contains(o.Err.Error(), "attempt 3 of 3") {
			t.Fatalf("retry then abort: %+v", o)
		}
		for i, want := range []time.Duration{150 * time.Millisecond, 300 * time.Millisecond} {
			gap := o.Attempts[i+1].Start.Sub(o.Attempts[i].Finish)
			within(t, "wait before attempt "+string(rune('2'+i)), gap, want, want+2*time.Second) // the lower bounds prove the doubling
		}

		s.Fallback = Continue
		if o = Run(context.Background(), conn, "node-a", s); o.Decision != DecisionContinue || len(o.Attempts) != 3 {
			t.Errorf("retry then continue: %+v", o)
		}

		// Succeeds at the second attempt: retries stop there.
		s = spec(t, `[ "$EGGO_HOOK_ATTEMPT" -ge 2 ] || { echo "not yet ($EGGO_HOOK_ATTEMPT)"; exit 1; }`+"\n")
		s.Policy, s.Attempts, s.Backoff = Retry, 5, 10*time.Millisecond
		o = Run(context.Background(), conn, "node-a", s)
		if o.Decision != DecisionOK || len(o.Attempts) != 2 || o.Err != nil || o.Attempts[0].Output != "not yet (1)" {
			t.Errorf("retry until success: %+v", o)
		}
		tempDirEmpty(t, s.TempDir)
	})
}

func TestBackoffDoublesUpToTheCap(t *testing.T) {
	s := Spec{Backoff: time.Minute}
	var got []time.Duration
	for n := 1; n <= 5; n++ {
		got = append(got, s.backoff(n))
	}
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, MaxBackoff, MaxBackoff}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("backoffs %v, want %v", got, want)
		}
	}
}

func TestSpecIsCheckedBeforeAnythingRuns(t *testing.T) {
	conn := localConn(t)
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"bad env name", func(s *Spec) { s.Env = map[string]string{"A-B": "x"} }, `"A-B" is not a shell name`},
		{"bad policy", func(s *Spec) { s.Policy = "ignore" }, `failure policy "ignore"`},
		{"endless retry", func(s *Spec) { s.Policy, s.Attempts = Retry, MaxAttempts+1 }, "attempts"},
		{"retry fallback", func(s *Spec) { s.Policy, s.Fallback = Retry, Retry }, "retry fallback"},
		{"relative dst", func(s *Spec) { s.Files = []FileCopy{{Src: "/etc/hostname", Dst: "etc/x"}} }, "not an absolute path"},
		{"no scripts", func(s *Spec) { s.Scripts = nil }, "no scripts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(t, "exit 0\n")
			tc.edit(&s)
			o := Run(context.Background(), conn, "node-a", s)
			if o.Decision != DecisionAbort || len(o.Attempts) != 0 || o.Err == nil || !strings.Contains(o.Err.Error(), tc.want) || !strings.Contains(o.Err.Error(), "node-a") {
				t.Errorf("outcome %+v, want an error with %q", o, tc.want)
			}
		})
	}
}

func TestFilesAreCopiedFirstWithTheirParents(t *testing.T) {
	src := filepath.Join(t.TempDir(), "ca.pem")
	writeFile(t, src, "certificate data\n", 0o640)
	transports(t, func(t *testing.T, conn providers.Conn) {
		root := t.TempDir()
		dst := filepath.Join(root, "etc", "hooks", "deep", "ca.pem")
		seen := filepath.Join(root, "seen")
		s := spec(t, "cat "+shell.Quote(dst)+" > "+shell.Quote(seen)+"\n")
		s.Files = []FileCopy{{Src: src, Dst: dst}}
		if o := Run(context.Background(), conn, "node-a", s); o.Decision != DecisionOK {
			t.Fatalf("outcome %+v", o)
		}
		if got := readFile(t, seen); got != "certificate data\n" {
			t.Errorf("the script saw %q", got)
		}
		fi, err := os.Stat(dst)
		if err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("copied file: %v %v", fi, err)
		}

		// A source that became a directory fails the attempt, naming it.
		s.Files = []FileCopy{{Src: root, Dst: dst}}
		o := Run(context.Background(), conn, "node-a", s)
		if o.Decision != DecisionAbort || !strings.Contains(o.Err.Error(), root+": not a regular file") {
			t.Errorf("outcome %+v", o)
		}
	})
}

func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular")
	writeFile(t, regular, "x", 0o644)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckFiles([]FileCopy{{Src: regular, Dst: "/a"}, {Src: link, Dst: "/b/c"}}); err != nil {
		t.Errorf("regular file and symlink to one refused: %v", err)
	}
	for _, tc := range []struct {
		f    FileCopy
		want string
	}{
		{FileCopy{Src: dir, Dst: "/a"}, dir + ": not a regular file"},
		{FileCopy{Src: fifo, Dst: "/a"}, fifo + ": not a regular file"},
		{FileCopy{Src: filepath.Join(dir, "missing"), Dst: "/a"}, filepath.Join(dir, "missing")},
		{FileCopy{Src: regular, Dst: "relative"}, `"relative" is not an absolute path`},
	} {
		if err := CheckFiles([]FileCopy{tc.f}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckFiles(%+v) = %v, want %q", tc.f, err, tc.want)
		}
	}
}
