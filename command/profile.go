package command

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// Three environment variables, for whoever measures eggo (make bench-scale
// and `go tool pprof`), not in the help: EGGO_CPUPROFILE=FILE writes a CPU
// profile of the whole command, EGGO_MEMPROFILE=FILE a heap profile
// (allocations since the start, and what is live) at its end, and
// EGGO_TRACE=FILE an execution trace (`go tool trace`): where the wall time
// goes, which a CPU profile of a command on two cores does not say.
const (
	cpuProfileEnv = "EGGO_CPUPROFILE"
	memProfileEnv = "EGGO_MEMPROFILE"
	traceEnv      = "EGGO_TRACE"
)

// profiled runs fn under the profiles s's environment asks for. A profile
// that cannot be written is reported and does not change the exit code.
func profiled(s Streams, fn func() int) int {
	defer recordTo(s, cpuProfileEnv, pprof.StartCPUProfile, pprof.StopCPUProfile)()
	defer recordTo(s, traceEnv, trace.Start, trace.Stop)()
	code := fn()
	if path := s.getenv(memProfileEnv); path != "" {
		runtime.GC() // the live heap as of the end
		if err := writeHeapProfile(path); err != nil {
			fmt.Fprintf(s.Err, "Warning: %s: %v\n", memProfileEnv, err)
		}
	}
	return code
}

// recordTo starts a recording (a CPU profile, a trace) into the file env
// names, if it names one, and returns what ends it.
func recordTo(s Streams, env string, start func(io.Writer) error, stop func()) func() {
	path := s.getenv(env)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = start(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(s.Err, "Warning: %s: %v\n", env, err)
		return func() {}
	}
	return func() {
		stop()
		f.Close()
	}
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
