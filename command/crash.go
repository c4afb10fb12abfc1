package command

import (
	"fmt"
	"runtime"
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
		what := panicText(r)
		fmt.Fprintf(s.Err, "Error: eggo crashed: %s\n\nThis is a bug in eggo. The state is as the last finished step left it. "+
			"Please report it with the command you ran; EGGO_LOG=debug adds the stack trace.\n", what)
		(&meta{streams: s}).logger().Error("crash", "panic", what, "stack", string(debug.Stack()))
		code = exitCrash
	}()
	return run()
}

// panicText says what panicked without printing an arbitrary value: a
// runtime error's text names an operation (an index out of range, a nil
// dereference), but any other panic value could have been formatted from
// whatever the code held, a secret included, so only its type is shown.
func panicText(r any) string {
	if err, ok := r.(runtime.Error); ok {
		return err.Error()
	}
	return fmt.Sprintf("panic(%T)", r)
}
