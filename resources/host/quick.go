package host

import (
	"strconv"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// The quick check. Hashing every bundle file on every refresh reads
// hundreds of megabytes per master, so, as rsync and make do, eggo records
// each installed file's stat once its content is known (right after the
// upload, or when a probe hashed it and found it as recorded) and later
// hashes only the files whose stat moved.
//
// The stat is size, mtime and ctime, in nanoseconds where the host's stat
// can print them. ctime is what makes it safe: any write, chmod, rename
// over the file or touch moves it to the current time, and no tool can set
// it back (touch -d fakes mtime only). What the check cannot see: a file
// of the same size rewritten within the same filesystem timestamp tick as
// eggo's own check of it (timestamps are coarse: a few milliseconds, a
// second where stat has no nanoseconds), and a host whose clock is set
// back to fake both times. A file written with a faked old mtime but an
// honest clock is still found, by its ctime.
//
// A record without stats (a state written by an older eggo, or a stat the
// host could not print) is simply hashed, as before: absence means
// unknown, never unchanged.

// quickStatFormat is stat -c's format for a file's quick-check stat.
const quickStatFormat = "%s %.9Y %.9Z"

// quickStatCmd prints path's quick-check stat, or nothing.
func quickStatCmd(path string) string {
	return "stat -c '" + quickStatFormat + "' " + shell.Quote(path) + " 2>/dev/null"
}

// knownFile is what a probe may take as a file's content without hashing
// it: the recorded sha256, as long as the stat is still the recorded one.
type knownFile struct {
	sha256 string
	stat   string
}

// knownFiles picks the recorded files a probe may quick-check: a clean
// record (not marked as drift) with a stat that vouches for it.
func knownFiles(files []bundleFile, stats map[string]string) map[string]knownFile {
	known := make(map[string]knownFile, len(stats))
	for _, f := range files {
		st, ok := stats[f.Path]
		if !ok || f.Drift != "" || f.SHA256 == "" || !validStat(st) || statSize(st) != f.Size {
			continue
		}
		known[f.Path] = knownFile{sha256: f.SHA256, stat: st}
	}
	return known
}

// validStat reports whether s is "SIZE MTIME CTIME" as quickStatFormat
// prints it: an unusable stat (an old or odd stat command printing
// something else) must never match, so it is not recorded at all.
func validStat(s string) bool {
	fields := strings.Split(s, " ")
	if len(fields) != 3 {
		return false
	}
	if _, err := strconv.ParseUint(fields[0], 10, 63); err != nil {
		return false
	}
	for _, t := range fields[1:] {
		secs, frac, _ := strings.Cut(t, ".")
		if _, err := strconv.ParseUint(secs, 10, 63); err != nil {
			return false
		}
		if frac != "" {
			if _, err := strconv.ParseUint(frac, 10, 63); err != nil {
				return false
			}
		}
	}
	return true
}

func statSize(s string) int64 {
	size, _, _ := strings.Cut(s, " ")
	n, _ := strconv.ParseInt(size, 10, 64)
	return n
}

// parseFileStats reads the file_stats attribute; entries that are not a
// valid stat are dropped (their files get hashed).
func parseFileStats(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for p, s := range m {
		if st := resources.AttrString(s); validStat(st) {
			out[p] = st
		}
	}
	return out
}

// fileStatsAttr is the file_stats attribute.
func fileStatsAttr(stats map[string]string) map[string]any {
	out := make(map[string]any, len(stats))
	for p, s := range stats {
		out[p] = s
	}
	return out
}
