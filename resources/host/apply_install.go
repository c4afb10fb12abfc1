package host

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// install makes one file hold its desired content and mode.
func (a *hostApply) install(ctx context.Context, f bundleFile, live, liveBackup probedFile) error {
	_, replaced := a.recs.replaced[f.Path]
	ours := a.recs.files[f.Path] || replaced
	switch {
	case live.matches(f):
		a.done[f.Path] = f
		a.setStat(f.Path, live.stat)
		return nil
	case live.state == f.SHA256 && ours:
		// Only the mode differs, on a file that is eggo's anyway. The chmod
		// moves its ctime: the stat is taken again, in the same command.
		out, err := a.run(ctx, "chmod "+shell.Quote(f.Mode)+" -- "+shell.Quote(f.Path)+" && { "+quickStatCmd(f.Path)+" || :; }", true)
		if err != nil {
			return a.errorf("%s: %w", f.Path, err)
		}
		a.done[f.Path] = f
		a.setStat(f.Path, out)
		return nil
	case live.state == "":
		return a.errorf("%s: the host did not report its state", f.Path)
	case live.state == probeNotFile || live.state == probeUnreadable:
		return a.errorf("%s is in the way: it exists and is not a readable regular file", f.Path)
	}
	if err := a.mkdirAll(ctx, path.Dir(f.Path)); err != nil {
		return err
	}
	if live.isFile() && !ours {
		// Someone else's file, with other content or mode: keep it to restore on delete.
		if err := a.moveAside(ctx, f.Path, live.state, liveBackup); err != nil {
			return err
		}
	}
	if err := a.upload(ctx, f); err != nil {
		return err // an upload that fails leaves dst as it was
	}
	if cmd := resources.AfterBundleFileInstalled(f.Path); cmd != "" {
		a.afterInstall = append(a.afterInstall, cmd)
	}
	if live.state == probeMissing && !replaced {
		a.recs.files[f.Path] = true
	}
	return nil
}

// moveAside keeps a pre-existing file with other content in the backup
// directory. A backup already there that state does not know of is one an
// interrupted run made: it holds the original, so it is adopted, not
// overwritten.
func (a *hostApply) moveAside(ctx context.Context, p, live string, liveBackup probedFile) error {
	backup := a.h.backupPath(p)
	if liveBackup.isFile() {
		a.rc.Log.Warn("adopting a backup left by an interrupted run", "host", a.node, "path", p, "backup", backup)
		a.recs.replaced[p] = replacedFile{backup: backup, sha256: liveBackup.state}
		return nil
	}
	if liveBackup.state != probeMissing {
		return a.errorf("%s: cannot move it aside: %s is in the way", p, backup)
	}
	if err := a.mkdirAll(ctx, path.Dir(backup)); err != nil {
		return err
	}
	if _, err := a.run(ctx, "mv -f -- "+shell.Quote(p)+" "+shell.Quote(backup), true); err != nil {
		return a.errorf("%s: moving the existing file aside to %s: %w", p, backup, err)
	}
	a.recs.replaced[p] = replacedFile{backup: backup, sha256: live}
	return nil
}

func (a *hostApply) upload(ctx context.Context, f bundleFile) error {
	src, err := a.h.source(f)
	if err != nil {
		return a.errorf("%s: %w", f.Path, err)
	}
	defer src.Close()
	a.rc.Progress(a.addr, fmt.Sprintf("copying %s (%s)", path.Base(f.Path), resources.HumanBytes(f.Size)))
	if err := a.conn.Upload(ctx, src, f.Size, f.Path, f.fileMode(), f.SHA256); err != nil {
		return a.errorf("copying %s: %w", f.Path, err)
	}
	a.done[f.Path] = f
	// The stat right after the copy, not at the end of the apply: a change
	// made in between would otherwise be recorded as eggo's content. A
	// failed stat only costs a hash at the next refresh.
	out, err := a.run(ctx, quickStatCmd(f.Path), false)
	if err != nil {
		a.rc.Log.Debug("no quick-check stat after copying", "host", a.node, "path", f.Path, "error", err)
	}
	a.setStat(f.Path, out)
	return nil
}

// setStat records the quick-check stat a command printed for p, if it
// printed a usable one.
func (a *hostApply) setStat(p, out string) {
	if st := strings.TrimSpace(out); validStat(st) {
		a.stats[p] = st
	} else {
		delete(a.stats, p)
	}
}

// mkdirAll creates the missing directories above and at dir one at a
// time, top-down, recording each so Delete removes exactly those.
func (a *hostApply) mkdirAll(ctx context.Context, dir string) error {
	var missing []string
	for d := dir; d != "/" && d != "." && !a.dirExists[d]; d = path.Dir(d) {
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		d := missing[i]
		// Another run (or node on the same machine) may have made it since
		// the probe: an existing directory is as good as a new one.
		if _, err := a.run(ctx, "mkdir -- "+shell.Quote(d)+" 2>/dev/null || test -d "+shell.Quote(d), true); err != nil {
			return a.errorf("creating directory %s: %w", d, err)
		}
		a.dirExists[d] = true
		a.recs.dirs[d] = true
	}
	return nil
}
