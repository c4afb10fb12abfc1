package jobrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// planFile is the saved plan's name in the run's directory.
const planFile = "saved.plan"

// layout fills the run's directory: cluster.hcl (config), and packages,
// a link to the bundle (a configuration names it `packages = "./packages"`).
func layout(o Options, config []byte) error {
	if err := requireKubeBackend(config, o.stateNamespace()); err != nil {
		return err
	}
	if err := os.MkdirAll(o.WorkDir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.WorkDir, v1alpha1.ConfigFile), config, 0o600); err != nil {
		return err
	}
	if o.Bundle == "" {
		return nil
	}
	link := filepath.Join(o.WorkDir, "packages")
	_ = os.Remove(link)
	return os.Symlink(o.Bundle, link)
}

// layoutMounted lays out the mounted configuration (plan, destroy).
func layoutMounted(o Options) error {
	data, err := os.ReadFile(filepath.Join(o.ConfigDir, v1alpha1.ConfigFile))
	if err != nil {
		return err
	}
	return layout(o, data)
}

// confineEnv confines every eggo a Job runs (plan, show, apply, destroy):
// what the configuration reads stays in the run's directory and the
// bundle, away from the mounted SSH key, identity and ServiceAccount
// token, and none of its hooks runs in the Job's container. It is
// engine/config's ConfineEnv, which this package may not import.
const confineEnv = "EGGO_CONFINE_FILES=1"

// eggo runs the eggo CLI in the run's directory, its output copied to out
// and errOut (and so into the Job's log).
func eggo(o Options, out, errOut io.Writer, args ...string) error {
	full := append([]string{"-chdir=" + o.WorkDir}, args...)
	cmd := exec.Command(o.Eggo, full...)
	cmd.Stdout, cmd.Stderr = out, errOut
	// The state's namespace when the backend block names none (it may
	// name only this one: requireKubeBackend); kubestate reads it as
	// Terraform's backend does.
	cmd.Env = append(os.Environ(), "NO_COLOR=1", confineEnv, "KUBE_NAMESPACE="+o.stateNamespace())
	// A Job's pod is stopped with SIGTERM (deleted, or past its deadline)
	// and killed after its grace period. eggo gets the SIGTERM too, so it
	// starts nothing new and records what finishes before the kill.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("eggo %s: %v", args[0], err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("eggo %s: %v", args[0], err)
	}
	return nil
}

// common are the flags every eggo run of this Job gets.
func (o Options) identityArgs() []string {
	if o.Identity == "" {
		return nil
	}
	return []string{"-identity=" + o.Identity}
}

func (o Options) varArgs() []string { return varFlags(o.Vars) }

func varFlags(vars []string) []string {
	var a []string
	for _, v := range vars {
		a = append(a, "-var="+v)
	}
	return a
}

// lines are the non-empty lines of s.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// runApply applies exactly the saved plan the controller asked for: it
// reads the plan's Secret from the state namespace (a pod mounts Secrets
// of its own namespace only, where the Jobs have none) and checks that
// its file is the approved hash, byte for byte, before eggo opens it.
func runApply(o Options, stdout, stderr io.Writer) error {
	saved, err := fetchPlan(o)
	if err != nil {
		return err
	}
	data := saved[v1alpha1.PlanKeyFile]
	if got := hashOf(data); got != o.PlanHash {
		return fmt.Errorf("the saved plan's Secret holds plan %s, not the approved %s: not applied", got[:12], o.PlanHash[:min(12, len(o.PlanHash))])
	}
	if err := layout(o, saved[v1alpha1.PlanKeyConfig]); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.WorkDir, planFile), data, 0o600); err != nil {
		return err
	}
	vars := lines(string(saved[v1alpha1.PlanKeyVars]))
	// The plan was made with the admin kubeconfig in place: the apply
	// runs in the same directory the plan saw.
	RestoreAccess(o, stderr, vars)
	err = eggo(o, stdout, stderr, append(append([]string{"apply"}, o.identityArgs()...), planFile)...)
	// What the run did, done or not: show loads the configuration, with
	// the variables the plan was made with.
	show, showErr := showState(o, stderr, vars)
	publishNodesOf(o, stderr, show, showErr)
	if err != nil {
		return err
	}
	return publishAccessAfterApply(o, stderr, show, showErr)
}

// publishAccessAfterApply publishes, after a successful apply, the admin
// kubeconfig eggo wrote and the CA certificate as the Secrets
// <cluster>-kubeconfig and <cluster>-ca. Failing to is the Job's failure:
// the cluster is applied, but its users would not get in, and a Ready
// status would hide it.
func publishAccessAfterApply(o Options, stderr io.Writer, show []byte, showErr error) error {
	if showErr != nil {
		return fmt.Errorf("applied, but the state could not be read to publish the admin kubeconfig: %v", showErr)
	}
	a, err := accessFromState(o.WorkDir, show)
	if err != nil {
		return fmt.Errorf("applied, but the admin kubeconfig was not published: %v", err)
	}
	if a == nil {
		fmt.Fprintln(stderr, "note: the cluster has no admin kubeconfig (no master): no "+
			v1alpha1.KubeconfigSecretName(o.Cluster)+" Secret published")
		return nil
	}
	if err := PublishAccess(o, *a); err != nil {
		return fmt.Errorf("applied, but %v", err)
	}
	fmt.Fprintf(stderr, "published the Secrets %s and %s\n", v1alpha1.KubeconfigSecretName(o.Cluster), v1alpha1.CASecretName(o.Cluster))
	return nil
}

// runDestroy destroys the cluster of the mounted configuration and, once
// it is gone, the saved plans and access Secrets it leaves in the state
// namespace, where no ownerReference takes them away with the
// EggoCluster.
func runDestroy(o Options, stdout, stderr io.Writer) error {
	if err := layoutMounted(o); err != nil {
		return err
	}
	args := append([]string{"destroy", "-auto-approve"}, o.identityArgs()...)
	err := eggo(o, stdout, stderr, append(args, o.varArgs()...)...)
	publishNodes(o, stderr, o.Vars)
	if err != nil {
		return err
	}
	if err := DeleteLeftovers(o, stderr); err != nil {
		return fmt.Errorf("destroyed, but %w", err)
	}
	return nil
}

// runPlan plans with -out, reads the plan's JSON lines for the summary and
// `eggo show` for the full text, publishes them, and deletes the plans
// this one supersedes.
//
// The plan's hash is the sha256 of the saved plan file as published: what
// the user approves, and what the apply Job checks the mounted file is,
// byte for byte, before eggo opens it (runApply). A plan of a sealed state
// is sealed, and age seals under a fresh key every time; the same plan
// made again keeps its hash all the same, because the current published
// plan is put where eggo saves (reuseSavedPlan) and eggo keeps that file
// as it is when it opens to the very plan it saves. The opened plan is not
// what is hashed: the apply Job would then check what it decrypted, not
// the bytes that were approved, and the ConfigMap, which more may read
// than the Secret, would publish a digest of the plan's secrets.
func runPlan(o Options, stdout, stderr io.Writer) error {
	if err := layoutMounted(o); err != nil {
		return err
	}
	RestoreAccess(o, stderr, o.Vars)
	reuseSavedPlan(o, stderr)
	var js bytes.Buffer
	args := append([]string{"plan", "-json", "-out=" + planFile}, o.identityArgs()...)
	if err := eggo(o, &js, stderr, append(args, o.varArgs()...)...); err != nil {
		stdout.Write(js.Bytes())
		return err
	}
	summary, err := summarize(js.Bytes())
	if err != nil {
		return err
	}
	var text bytes.Buffer
	// show loads the configuration (for its backend): it needs the variables too.
	show := append(append([]string{"show"}, o.identityArgs()...), o.varArgs()...)
	if err := eggo(o, &text, stderr, append(show, planFile)...); err != nil {
		return err
	}
	stdout.Write(text.Bytes())
	saved, err := os.ReadFile(filepath.Join(o.WorkDir, planFile))
	if err != nil {
		return err
	}
	config, err := os.ReadFile(filepath.Join(o.WorkDir, v1alpha1.ConfigFile))
	if err != nil {
		return err
	}
	hash := hashOf(saved)
	if err := Publish(o, Plan{Hash: hash, Summary: summary, Text: text.String(), Saved: saved, Config: config}); err != nil {
		return err
	}
	publishNodes(o, stderr, o.Vars)
	if err := DeleteSuperseded(o, hash, stderr); err != nil {
		return fmt.Errorf("plan %s is published, but the plans it supersedes are not all deleted: %w", hash[:12], err)
	}
	return nil
}
