package ssh

import (
	"strconv"

	"github.com/eggo-project/eggo/providers/shell"
)

// pgidMarker starts the first line the wrapper writes to stderr: the
// command's process group, so that a cancelled command can be killed with
// everything it started.
const pgidMarker = "eggo-pgid "

// wrapper reports the process group (field 5 of /proc/self/stat) and then
// replaces itself with the command, so exit codes and signals pass through
// unchanged. The command is "$1", so its own syntax errors cannot break the
// wrapper.
const wrapper = `read -r _ _ _ _ g _ 2>/dev/null </proc/$$/stat || g=; printf '` + pgidMarker + `%s\n' "$g" >&2; exec sh -c "$1"`

// remoteCommand is the line sent to the login shell for cmd: the wrapper
// run by sh, under non-interactive sudo when asked.
func remoteCommand(cmd string, sudo bool) string {
	prefix := "exec "
	if sudo {
		prefix += "sudo -n "
	}
	return prefix + "sh -c " + shell.Quote(wrapper) + " eggo " + shell.Quote(cmd)
}

// killCommand kills process group pgid (dash's kill takes -PGID).
func killCommand(pgid int, sudo bool) string {
	return remoteCommand("kill -9 -"+strconv.Itoa(pgid), sudo)
}
