package host

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/eggo-project/eggo/resources"
)

// preflight lists everything that makes a host unfit to receive its bundle,
// all at once, so one run tells the operator every problem to fix.
func preflight(f *hostFactsData, arch string, toCopy []bundleFile) []string {
	var problems []string
	if got := goArch(f.machine); got != arch {
		problems = append(problems, fmt.Sprintf("arch is %s, node says %s", resources.AttrOr(got, "unknown"), arch))
	}
	if !f.resolves {
		problems = append(problems, fmt.Sprintf("hostname %s does not resolve (getent hosts %s)", f.hostname, f.hostname))
	}
	if len(f.missingCommands) > 0 {
		problems = append(problems, "missing commands: "+strings.Join(f.missingCommands, ", "))
	}
	if p := clockProblem(f); p != "" {
		problems = append(problems, p)
	}
	problems = append(problems, diskProblems(f.disks, toCopy)...)
	return problems
}

func clockProblem(f *hostFactsData) string {
	if f.remoteTime.IsZero() {
		return "could not read the clock (date +%s.%N)"
	}
	skew := f.remoteTime.Sub(f.localTime)
	dir := "ahead of"
	if skew < 0 {
		skew, dir = -skew, "behind"
	}
	if skew <= maxClockSkew {
		return ""
	}
	return fmt.Sprintf("clock is %s %s this machine (limit %s)", skew.Round(time.Second), dir, maxClockSkew)
}

// diskProblems checks each filesystem has room for what will be copied to
// it plus 10 %, the slack an upload's temporary file and logs need.
func diskProblems(disks []hostDisk, toCopy []bundleFile) []string {
	byDir := map[string]hostDisk{}
	for _, d := range disks {
		byDir[d.dir] = d
	}
	need := map[string]int64{} // mount → bytes
	avail := map[string]int64{}
	var problems []string
	for _, f := range toCopy {
		d, ok := byDir[path.Dir(f.Path)]
		if !ok {
			problems = append(problems, "could not read free space for "+path.Dir(f.Path))
			continue
		}
		need[d.mount] += f.Size
		avail[d.mount] = d.availKB * 1024
	}
	mounts := make([]string, 0, len(need))
	for m := range need {
		mounts = append(mounts, m)
	}
	sort.Strings(mounts)
	for _, m := range mounts {
		want := need[m] + need[m]/10
		if want > avail[m] {
			problems = append(problems, fmt.Sprintf("%s free on %s, needs %s (bundle %s + 10%%)",
				resources.HumanBytes(avail[m]), m, resources.HumanBytes(want), resources.HumanBytes(need[m])))
		}
	}
	return problems
}
