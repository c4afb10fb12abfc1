package resources

import (
	"fmt"
	"strconv"
	"strings"
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
type hostProbe struct {
	files []string
	dirs  []string
}

// script prints "@f INDEX VALUE" and "@d INDEX VALUE" lines.
func (p hostProbe) script() string {
	var b strings.Builder
	b.WriteString(`pf() { if [ -f "$1" ]; then if s=$(sha256sum < "$1" 2>/dev/null); then echo "@f $2 ${s%% *} $(stat -c %a "$1" 2>/dev/null)"; ` +
		`else echo "@f $2 ` + probeUnreadable + `"; fi; ` +
		`elif [ -e "$1" ] || [ -L "$1" ]; then echo "@f $2 ` + probeNotFile + `"; else echo "@f $2 ` + probeMissing + `"; fi; }` + "\n")
	b.WriteString(`pd() { if [ -d "$1" ]; then echo "@d $2 ` + probeDir + `"; elif [ -e "$1" ] || [ -L "$1" ]; then echo "@d $2 ` + probeNotDir + `"; ` +
		`else echo "@d $2 ` + probeMissing + `"; fi; }` + "\n")
	for i, f := range p.files {
		b.WriteString("pf " + hostQuote(f) + " " + strconv.Itoa(i) + "\n")
	}
	for i, d := range p.dirs {
		b.WriteString("pd " + hostQuote(d) + " " + strconv.Itoa(i) + "\n")
	}
	return b.String()
}

// probedFile is what the probe saw at a file's path.
type probedFile struct {
	state string // the sha256 of a regular file, else probeMissing, probeNotFile or probeUnreadable
	mode  string // permission bits of a regular file, "0755"
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
// output does not mention (the script died) is absent from the maps.
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
				state, mode, _ := strings.Cut(parts[2], " ")
				files[p.files[i]] = probedFile{state: state, mode: octalMode(mode)}
			}
		case "@d":
			if i < len(p.dirs) {
				dirs[p.dirs[i]] = parts[2]
			}
		}
	}
	return files, dirs
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

// hostQuote quotes s for sh.
func hostQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
