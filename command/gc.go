package command

import "runtime/debug"

// gcPercent is eggo's GOGC when the environment sets none. A command is
// short (a plan) or mostly waits on hosts (an apply), and what it holds is
// small beside the machine: at Go's default of 100 the collector ran a
// dozen times in a 10,000-node plan and took an eighth of its CPU. At 400
// it runs a few times; the heap peaks higher (a 10,000-node plan: 830 MB
// resident, was 650 MB; 1,000 nodes: 100 MB, was 90 MB), and both
// bench-scale targets of time and memory hold.
const gcPercent = 400

// tuneGC sets gcPercent unless the user chose with GOGC.
func tuneGC(s Streams) {
	if s.getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}
