package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/eggo-project/eggo/resources/hook"
	"github.com/eggo-project/eggo/resources/hookrun"
)

// fileCopyType is one element of files: { src = "...", dst = "..." }.
var fileCopyType = cty.Object(map[string]cty.Type{"src": cty.String, "dst": cty.String})

// decodeShellHook reads source and files and reads the scripts now, with
// hookrun's own rules, so a missing script fails the plan at its line and
// apply runs exactly what the plan saw.
func (l *loader) decodeShellHook(dec *decoder, hb *hookBlock) *hook.Shell {
	attrs := hb.content.Attributes
	sh := &hook.Shell{}
	a := attrs["source"]
	dec.requireAttr(a) // a shell hook's source is required like a schema's
	if a == nil {
		dec.errorf(hb.block.DefRange, "Missing hook source",
			"Shell hook %q has nothing to run: set source = \"hooks/NAME.sh\" (a script) or a directory whose top-level files run in name order. "+
				"For a check hook, set type = \"web\" or \"prometheus\".", hb.block.Labels[0])
	} else if p := dec.strPtr(attrs, "source"); p != nil {
		l.loadHookSource(dec, a, *p, sh)
	}
	sh.Files = l.decodeHookFiles(dec, attrs["files"])
	return sh
}

func (l *loader) loadHookSource(dec *decoder, a *hcl.Attribute, p string, sh *hook.Shell) {
	abs, err := l.confinedPath(p)
	if err != nil {
		dec.errorf(a.Expr.Range(), "Invalid hook source", "%s.", err)
		return
	}
	scripts, err := hookrun.LoadSource(abs)
	if errors.Is(err, fs.ErrNotExist) && !strings.Contains(err.Error(), abs+"/") {
		dec.errorf(a.Expr.Range(), "Hook source not found",
			"source %s (%s) does not exist. It is a script file or a directory of scripts; relative paths start at the configuration directory.",
			strconv.Quote(p), abs)
		return
	}
	if err != nil {
		dec.errorf(a.Expr.Range(), "Invalid hook source",
			"source %s cannot be used: %s. It must be a script file, or a directory whose regular top-level files are the scripts.",
			strconv.Quote(p), err)
		return
	}
	dir := abs
	if st, err := os.Stat(abs); err == nil && !st.IsDir() {
		dir = filepath.Dir(abs)
	} else {
		// A directory's scripts may be links: each is judged where it leads.
		for _, s := range scripts {
			if _, err := l.confined(filepath.Join(p, s.Name), filepath.Join(abs, s.Name)); err != nil {
				dec.errorf(a.Expr.Range(), "Invalid hook source", "%s.", err)
				return
			}
		}
	}
	sh.Path, sh.Scripts = abs, scripts
	for _, s := range scripts {
		l.readFiles[filepath.Join(dir, s.Name)] = s.Content
	}
}

// decodeHookFiles reads files, checking each src is a regular file now
// (tkestack finds out on the host, halfway through an operation).
func (l *loader) decodeHookFiles(dec *decoder, a *hcl.Attribute) []hookrun.FileCopy {
	v, ok := dec.eval(a, cty.List(fileCopyType))
	if !ok {
		return nil
	}
	var out []hookrun.FileCopy
	n := v.LengthInt()
	for i, it := 0, v.ElementIterator(); it.Next(); i++ {
		_, ev := it.Element()
		rng := elementRange(a.Expr, i, n)
		if ev.IsNull() {
			dec.errorf(rng, "Invalid hook file", "An element of files is null. Each element needs src (a file here) and dst (an absolute path on the node).")
			continue
		}
		src, dst := ev.GetAttr("src"), ev.GetAttr("dst")
		if src.IsNull() || dst.IsNull() {
			dec.errorf(rng, "Invalid hook file", "Each element of files needs src (a file here) and dst (an absolute path on the node).")
			continue
		}
		abs, err := l.confinedPath(src.AsString())
		if err != nil {
			dec.errorf(rng, "Invalid hook file", "src: %s.", err)
			continue
		}
		if why := nodePathProblem(dst.AsString()); why != "" {
			dec.errorf(rng, "Invalid hook file", "dst %s is a path on the node: %s.", quoted(dst.AsString()), why)
			continue
		}
		f := hookrun.FileCopy{Src: abs, Dst: dst.AsString()}
		if err := hookrun.CheckFiles([]hookrun.FileCopy{f}); err != nil {
			dec.errorf(rng, "Invalid hook file",
				"%s. src is a regular file on this machine (relative paths start at the configuration directory); dst is an absolute path on the node.", err)
			continue
		}
		out = append(out, f)
	}
	return out
}

// decodeShellTimes reads a shell hook's per-script limit and grace.
func decodeShellTimes(dec *decoder, attrs hcl.Attributes) (timeout, grace time.Duration) {
	timeout, grace = dec.duration(attrs, "timeout", hookrun.DefaultTimeout), dec.duration(attrs, "grace", hookrun.DefaultGrace)
	dec.atLeast(attrs, "timeout", timeout, time.Second, "each script needs that long to start on its node and run")
	dec.atLeast(attrs, "grace", grace, time.Millisecond, "a script needs time to act on SIGTERM before SIGKILL")
	dec.atMost(attrs, "timeout", timeout, maxHookTime, "a script that runs longer holds up its operation for more than a day")
	dec.atMost(attrs, "grace", grace, time.Hour, "a script asked to stop that has not stopped in an hour will not")
	return timeout, grace
}
