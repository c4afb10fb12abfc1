package certs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/eggo-project/eggo/internal/atomicfile"
	"github.com/eggo-project/eggo/resources"
)

// Create writes the kubeconfig.
func (k *Kubeconfig) Create(_ context.Context, rc *resources.RunContext, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	return k.write(rc, desired)
}

// Update rewrites the kubeconfig, and removes the old file when the
// cluster's new name moved it, if that file is still what eggo wrote.
func (k *Kubeconfig) Update(_ context.Context, rc *resources.RunContext, prior resources.Object, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	out, err := k.write(rc, desired)
	if err != nil {
		return nil, err
	}
	if old := resources.AttrString(prior.Attrs[kcPath]); old != "" && old != out[kcPath] {
		if err := removeIfUnchanged(rc, kubeconfigFullPath(rc, old), resources.AttrString(prior.Attrs[kcSHA256])); err != nil {
			return out, fmt.Errorf("%s: %w", desired.Addr, err)
		}
	}
	return out, nil
}

func (k *Kubeconfig) write(rc *resources.RunContext, desired resources.Desired) (resources.Attrs, error) {
	rel, err := kubeconfigPathOf(desired.Attrs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", desired.Addr, err)
	}
	content, known := kubeconfigContent(desired.Attrs)
	if !known {
		return nil, fmt.Errorf("%s: the cluster CA or the client certificate or key is not known", desired.Addr)
	}
	path := kubeconfigFullPath(rc, rel)
	if err := atomicfile.Write(path, []byte(content), 0o600); err != nil {
		return nil, fmt.Errorf("%s: %w", desired.Addr, err)
	}
	out := kubeconfigRecordable(desired.Attrs)
	out[kcPath], out[kcSHA256] = rel, sha256Text(content)
	return out, nil
}

// Read compares the file with what eggo wrote. The recorded sha256 stays
// as it was, so a Delete after this refresh still recognises eggo's file
// and leaves a modified one alone; drift says what was found.
func (k *Kubeconfig) Read(_ context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, []resources.Reason, error) {
	rel := resources.AttrString(prior.Attrs[kcPath])
	if rel == "" {
		return prior.Attrs, nil, nil // nothing written yet
	}
	drift := ""
	b, err := os.ReadFile(kubeconfigFullPath(rc, rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		drift = kcDriftMissing
	case err != nil:
		return nil, nil, fmt.Errorf("%s: %w", prior.Addr, err)
	case sha256Text(string(b)) != resources.AttrString(prior.Attrs[kcSHA256]):
		drift = kcDriftModified
	}
	live := make(resources.Attrs, len(prior.Attrs))
	for k, v := range prior.Attrs {
		if k != kcDrift {
			live[k] = v
		}
	}
	if drift == "" {
		return live, nil, nil
	}
	live[kcDrift] = drift
	return live, []resources.Reason{kubeconfigDriftReason(rel, drift)}, nil
}

// Delete removes the file if it is still what eggo wrote; a file someone
// changed since is left in place (and said so in the log).
func (k *Kubeconfig) Delete(_ context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, error) {
	rel := resources.AttrString(prior.Attrs[kcPath])
	if rel == "" {
		return nil, nil
	}
	if err := removeIfUnchanged(rc, kubeconfigFullPath(rc, rel), resources.AttrString(prior.Attrs[kcSHA256])); err != nil {
		return prior.Attrs, fmt.Errorf("%s: %w", prior.Addr, err)
	}
	return nil, nil
}

func removeIfUnchanged(rc *resources.RunContext, path, sum string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if sha256Text(string(b)) != sum {
		rc.Log.Warn("kubeconfig left in place: it was changed since eggo wrote it", "path", path)
		return nil
	}
	return os.Remove(path)
}
