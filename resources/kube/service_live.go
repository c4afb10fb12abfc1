package kube

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// serviceLive is what refresh saw of a service on its host.
type serviceLive struct {
	Active string            // systemctl is-active: active, inactive, failed, …
	Unit   string            // sha256 of the unit file, "" when missing
	Files  map[string]string // path → sha256, "" when missing
	// Problems are what a component's own live checks found wrong (a
	// pod route missing), each a sentence for the plan's reason.
	Problems []string
}

func (l serviceLive) attrs() map[string]any {
	files := make(map[string]any, len(l.Files))
	for p, s := range l.Files {
		files[p] = s
	}
	out := map[string]any{"active": l.Active, "unit_sha256": l.Unit, "files": files}
	if len(l.Problems) > 0 {
		problems := make([]any, len(l.Problems))
		for i, p := range l.Problems {
			problems[i] = p
		}
		out["problems"] = problems
	}
	return out
}

func parseLive(v any) (serviceLive, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return serviceLive{}, false
	}
	l := serviceLive{Active: resources.AttrString(m["active"]), Unit: resources.AttrString(m["unit_sha256"]), Files: map[string]string{},
		Problems: resources.StringList(m["problems"])}
	if fm, ok := m["files"].(map[string]any); ok {
		for p, s := range fm {
			l.Files[p] = resources.AttrString(s)
		}
	}
	return l, true
}

// liveCheck is a component's own read-only probe, run with the service's:
// script prints one line, which verdict turns into problems (none when all
// is well). verdict gets "" when the script printed nothing.
type liveCheck struct {
	name    string
	script  string
	verdict func(out string) []string
}

// probeService reads a service's state, and runs its checks, with one
// read-only command.
// A static pod is "active" when containerd runs the pod of the manifest
// recorded (recorded: the files' digests as written).
func probeService(ctx context.Context, conn providers.Conn, s service, recorded map[string]any, paths []string, checks []liveCheck) (serviceLive, error) {
	var b strings.Builder
	if s.Pod != nil {
		fmt.Fprintf(&b, "if ( %s ); then echo 'active active'; else echo 'active not-running'; fi\n", podRunning(s.Pod.PodName, configDigest(s.Unit, recorded), s.unitPath()))
	} else {
		fmt.Fprintf(&b, "printf 'active %%s\\n' \"$(systemctl is-active %s 2>/dev/null)\"\n", shell.Quote(s.UnitName))
	}
	unitPath := s.unitPath()
	all := append([]string{unitPath}, paths...)
	for _, p := range all {
		fmt.Fprintf(&b, "if [ -f %[1]s ]; then printf 'file %%s %%s\\n' \"$(sha256sum < %[1]s | cut -d' ' -f1)\" %[1]s; else printf 'file - %%s\\n' %[1]s; fi\n", shell.Quote(p))
	}
	for _, c := range checks {
		fmt.Fprintf(&b, "printf 'check %%s %%s\\n' %s \"$(%s)\"\n", shell.Quote(c.name), c.script)
	}
	out, err := resources.RunScript(ctx, conn, b.String(), false)
	if err != nil {
		return serviceLive{}, err
	}
	l := serviceLive{Files: map[string]string{}}
	checked := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 3)
		switch {
		case len(f) >= 2 && f[0] == "check":
			if len(f) == 3 {
				checked[f[1]] = f[2]
			}
		case len(f) >= 2 && f[0] == "active":
			l.Active = f[1]
		case len(f) == 3 && f[0] == "file":
			sum := f[1]
			if sum == "-" {
				sum = ""
			}
			l.Files[f[2]] = sum
		}
	}
	if l.Active == "" {
		l.Active = "unknown"
	}
	l.Unit = l.Files[unitPath]
	delete(l.Files, unitPath)
	for _, c := range checks {
		l.Problems = append(l.Problems, c.verdict(checked[c.name])...)
	}
	return l, nil
}
