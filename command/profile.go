package command

import (
	"fmt"
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
	if path := s.getenv(cpuProfileEnv); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(s.Err, "Warning: %s: %v\n", cpuProfileEnv, err)
		} else {
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
	}
	if path := s.getenv(traceEnv); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintf(s.Err, "Warning: %s: %v\n", traceEnv, err)
		} else {
			defer f.Close()
			defer trace.Stop()
		}
	}
	code := fn()
	if path := s.getenv(memProfileEnv); path != "" {
		runtime.GC() // the live heap as of the end
		if err := writeHeapProfile(path); err != nil {
			fmt.Fprintf(s.Err, "Warning: %s: %v\n", memProfileEnv, err)
		}
	}
	return code
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
