package host

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
)

// States a probe reports besides a file's sha256.
const (
	probeMissing    = "missing"    // nothing at that path
	probeNotFile    = "notfile"    // something that is not a regular file
	probeUnreadable = "unreadable" // a file sha256sum could not read
	probeDir        = "dir"        // a directory
	probeNotDir     = "notdir"     // something that is not a directory
)

// hostProbe is the read-only look at many paths that one remote command
// takes: the sha256 (or a state) of files and whether directories exist.
// Batched so that a host costs one round trip however large its bundle.
// A file in known whose stat is still the recorded one is not hashed (the
// quick check, quick.go).
type hostProbe struct {
	files []string
	dirs  []string
	known map[string]knownFile
}

// probeKnown is the state a probe reports for a file it did not hash
// because its stat vouches for the recorded content.
const probeKnown = "="

// script prints "@f INDEX VALUE" and "@d INDEX VALUE" lines. A file's
// VALUE is "SHA256 MODE SIZE MTIME CTIME", or "= MODE SIZE MTIME CTIME"
// when its stat matched the known one, or a state. The stat is taken
// before hashing: a file changed while being hashed then shows a newer
// stat than the one recorded with its sha256, and is hashed again next time.
func (p hostProbe) script() string {
	var b strings.Builder
	b.WriteString(`pf() { if [ -f "$1" ]; then ` +
		`st=$(stat -c '%a ` + quickStatFormat + `' "$1" 2>/dev/null) || st=$(stat -c %a "$1" 2>/dev/null); ` +
		`if [ -n "$3" ] && [ "${st#* }" = "$3" ]; then echo "@f $2 ` + probeKnown + ` $st"; ` +
		`elif s=$(sha256sum < "$1" 2>/dev/null); then echo "@f $2 ${s%% *} $st"; ` +
		`else echo "@f $2 ` + probeUnreadable + `"; fi; ` +
		`elif [ -e "$1" ] || [ -L "$1" ]; then echo "@f $2 ` + probeNotFile + `"; else echo "@f $2 ` + probeMissing + `"; fi; }` + "\n")
	b.WriteString(`pd() { if [ -d "$1" ]; then echo "@d $2 ` + probeDir + `"; elif [ -e "$1" ] || [ -L "$1" ]; then echo "@d $2 ` + probeNotDir + `"; ` +
		`else echo "@d $2 ` + probeMissing + `"; fi; }` + "\n")
	for i, f := range p.files {
		b.WriteString("pf " + shell.Quote(f) + " " + strconv.Itoa(i))
		if k, ok := p.known[f]; ok {
			b.WriteString(" " + shell.Quote(k.stat))
		}
		b.WriteString("\n")
	}
	for i, d := range p.dirs {
		b.WriteString("pd " + shell.Quote(d) + " " + strconv.Itoa(i) + "\n")
	}
	return b.String()
}

// probedFile is what the probe saw at a file's path.
type probedFile struct {
	state  string // the sha256 of a regular file, else probeMissing, probeNotFile or probeUnreadable
	mode   string // permission bits of a regular file, "0755"
	stat   string // its quick-check stat, taken before hashing; "" when the host could not print one
	hashed bool   // the host read the whole file to hash it
}

// matches reports whether the file holds f's content with f's mode.
func (p probedFile) matches(f bundleFile) bool {
	return p.state == f.SHA256 && p.mode == f.Mode
}

// isFile reports whether a regular, readable file was there.
func (p probedFile) isFile() bool {
	switch p.state {
	case "", probeMissing, probeNotFile, probeUnreadable:
		return false
	}
	return true
}

// parse maps each probed path to what the script reported. A path the
// output does not mention (the script died) is absent from the maps. A
// file the quick check vouched for reports its known sha256.
func (p hostProbe) parse(out string) (files map[string]probedFile, dirs map[string]string) {
	files = make(map[string]probedFile, len(p.files))
	dirs = make(map[string]string, len(p.dirs))
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "@") {
			continue
		}
		parts := strings.SplitN(line, " ", 3)
		if len(parts) != 3 {
			continue
		}
		i, err := strconv.Atoi(parts[1])
		if err != nil || i < 0 {
			continue
		}
		switch parts[0] {
		case "@f":
			if i < len(p.files) {
				path := p.files[i]
				state, rest, _ := strings.Cut(parts[2], " ")
				mode, stat, _ := strings.Cut(rest, " ")
				if !validStat(stat) {
					stat = ""
				}
				pf := probedFile{state: state, mode: octalMode(mode), stat: stat, hashed: true}
				if state == probeKnown {
					k, ok := p.known[path]
					if !ok || stat != k.stat {
						continue // not what was asked: as if unreported
					}
					pf.state, pf.hashed = k.sha256, false
				} else if !pf.isFile() {
					pf.hashed = false
				}
				files[path] = pf
			}
		case "@d":
			if i < len(p.dirs) {
				dirs[p.dirs[i]] = parts[2]
			}
		}
	}
	return files, dirs
}

// countHashed adds the files the host hashed to the kind's counter.
func (h *Host) countHashed(files map[string]probedFile) {
	n := int64(0)
	for _, f := range files {
		if f.hashed {
			n++
		}
	}
	h.probeHashed.Add(n)
}

// octalMode normalizes stat's %a ("755", "4755") to the permission bits
// as the files attribute spells them ("0755").
func octalMode(s string) string {
	m, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%04o", m&0o777)
}
