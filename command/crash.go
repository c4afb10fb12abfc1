package command

import (
	"fmt"
	"runtime/debug"
)

// exitCrash is what a crash exits with: 1, like any error. It must never be
// 2, which -detailed-exitcode uses for "changes present": a CI job would
// read a crash as a diff.
const exitCrash = 1

// guard runs a command and turns a panic in it into a short message and
// exitCrash. The stack is written to the debug log (EGGO_LOG=debug), not
// shown by default: it is for the bug report, not for the operator.
func guard(s Streams, run func() int) (code int) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		fmt.Fprintf(s.Err, "Error: eggo crashed: %v\n\nThis is a bug in eggo. The state is as the last finished step left it. "+
			"Please report it with the command you ran; EGGO_LOG=debug adds the stack trace.\n", r)
		(&meta{streams: s}).logger().Error("crash", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		code = exitCrash
	}()
	return run()
}
