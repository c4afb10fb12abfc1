package hookrun

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/eggo-project/eggo/providers/shell"
)

// statusMarker starts the line the controller prints on its stdout after
// each script: index, exit status, and the signal the watchdog sent.
const statusMarker = "eggo-hook-status"

// controller runs on the host as `sh -c controller eggo-hook DIR LIMIT
// GRACE WATCHDOG`, LIMIT and GRACE in hundredths of a second. It sources
// DIR/plan (exports, then one run_one line per script) and removes DIR
// when it exits. Each script starts under setsid, so it leads a new
// session and process group that the watchdog can signal as a whole
// without touching the controller; its stdout is its stderr, so the two
// streams arrive interleaved as they were written. The controller's own
// stdout carries only the status lines.
const controller = `d=$1 limit=$2 grace=$3 watchdog=$4
trap 'rm -rf -- "$d"' EXIT
trap 'exit 129' HUP
trap 'exit 141' PIPE
trap 'exit 143' TERM
run_one() {
	idx=$1; shift
	: >"$d/signal"
	setsid "$@" </dev/null 1>&2 &
	p=$!
	setsid sh -c "$watchdog" eggo-hook-watchdog "$p" "$limit" "$grace" "$$" "$d" </dev/null >/dev/null 2>&1 &
	w=$!
	wait "$p" 2>/dev/null; rc=$?
	# What the script left running in its group ends with it.
	kill -TERM -"$p" 2>/dev/null
	wait "$w"
	sig=$(cat "$d/signal")
	printf '` + statusMarker + ` %s %s %s\n' "$idx" "$rc" "$sig"
	[ "$rc" -eq 0 ] && [ -z "$sig" ]
}
. "$d/plan"`

// watchdog runs in a session of its own (so killing the controller's
// group, which is what cancelling a command does, leaves it alive) as
// `sh -c watchdog eggo-hook-watchdog PID LIMIT GRACE CONTROLLER DIR`. While
// the script's process or group lives, it waits for the time limit (by
// /proc/uptime, so ticks do not drift) or for the controller to vanish
// (eggo cancelled the hook); then it records and sends TERM to the group,
// and after GRACE records and sends KILL. Deadlines are one tick (1/100 s)
// past the limit: the first reading is rounded down, and a limit must never
// be cut short. It ignores the signals it sends.
// Zombies do not count as alive: an orphan whose new parent is slow to reap
// it stays in the group, and would otherwise earn the group a KILL. A
// dropped SSH connection still ends the hook at its limit, and
// when the controller is gone the watchdog removes DIR itself.
const watchdog = `p=$1 limit=$2 grace=$3 ctl=$4 d=$5
trap '' HUP INT TERM PIPE
now() { read -r t _ </proc/uptime; t=$(( ${t%.*} * 100 + 1${t#*.} - 100 )); }
running() { # $1: a /proc/PID/stat file; sets g to the process group
	read -r line <"$1" 2>/dev/null || return 1
	set -- ${line##*) }
	g=$3
	[ "$1" != Z ]
}
alive() {
	running "/proc/$p/stat" && return 0
	kill -0 -"$p" 2>/dev/null || return 1
	for f in /proc/[0-9]*/stat; do
		running "$f" && [ "$g" = "$p" ] && return 0
	done
	return 1
}
now; deadline=$((t + limit + 1))
while alive; do
	kill -0 "$ctl" 2>/dev/null || break
	now; [ "$t" -ge "$deadline" ] && break
	sleep 0.1
done
if alive; then
	echo TERM >"$d/signal"
	kill -TERM -"$p" 2>/dev/null
	now; deadline=$((t + grace + 1))
	while alive; do
		now; [ "$t" -ge "$deadline" ] && break
		sleep 0.1
	done
	if alive; then
		echo KILL >"$d/signal"
		kill -KILL -"$p" 2>/dev/null
	fi
fi
kill -0 "$ctl" 2>/dev/null || rm -rf -- "$d"`

// controllerCommand is the command line that runs the controller.
func controllerCommand(dir string, timeout, grace time.Duration) string {
	return "sh -c " + shell.Quote(controller) + " eggo-hook " + shell.Quote(dir) + " " +
		strconv.FormatInt(centis(timeout), 10) + " " + strconv.FormatInt(centis(grace), 10) + " " + shell.Quote(watchdog)
}

// centis is d in hundredths of a second, at least one.
func centis(d time.Duration) int64 { return max(1, int64(d/(10*time.Millisecond))) }

// planFile is the file the controller sources: the environment as quoted
// exports (never on a command line, where ps would show it), then one
// run_one line per script with the hook's arguments as quoted words.
// Scripts are stored as DIR/0, DIR/1 … so no file name needs care.
func planFile(env map[string]string, scripts []Script, args []string) string {
	var b strings.Builder
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "export %s=%s\n", k, shell.Quote(env[k]))
	}
	for i, s := range scripts {
		fmt.Fprintf(&b, "export EGGO_HOOK_SCRIPT=%s\n", shell.Quote(s.Name))
		fmt.Fprintf(&b, "run_one %d", i)
		for _, w := range interpreter(s.Content) {
			b.WriteString(" " + shell.Quote(w))
		}
		fmt.Fprintf(&b, ` "$d/%d"`, i)
		for _, a := range args {
			b.WriteString(" " + shell.Quote(a))
		}
		b.WriteString(" || exit 1\n")
	}
	return b.String()
}

// interpreter is what runs a script, read from its #! line the way the
// kernel does (the program and at most one argument), or sh without one.
// Naming the interpreter instead of executing the file keeps hooks working
// where the temporary directory is mounted noexec.
func interpreter(content []byte) []string {
	line, _, _ := strings.Cut(string(content[:min(len(content), 256)]), "\n")
	if !strings.HasPrefix(line, "#!") {
		return []string{"sh"}
	}
	line = strings.TrimSpace(strings.TrimSuffix(line[2:], "\r"))
	prog, arg := line, ""
	if i := strings.IndexAny(line, " \t"); i >= 0 {
		prog, arg = line[:i], line[i+1:]
	}
	if prog == "" {
		return []string{"sh"}
	}
	if arg = strings.TrimSpace(arg); arg != "" {
		return []string{prog, arg}
	}
	return []string{prog}
}
