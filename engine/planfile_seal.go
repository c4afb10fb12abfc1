package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"filippo.io/age"

	"github.com/eggo-project/eggo/state"
)

// Sealed plans. A saved plan holds what the state holds — every private
// key of the cluster, in its steps' recorded objects — and what the
// configuration gives (sensitive outputs, -var values). A plan of a state
// whose secrets are sealed is sealed too, to the recipients that state is
// sealed to once the plan is applied: the file exposes no more than the
// state does. It is the whole plan file as an age file, inside an envelope
// (planFile's SealedTo and SealedPlan) that says, in clear, which eggo
// made it and to whom it is sealed (public keys): apply refuses a plan of
// another eggo, and names the recipients, before it needs an identity.

// PlanSeal is how a saved plan is sealed.
type PlanSeal struct {
	// To are the recipients (age1…, ssh-…) the plan is sealed to; none:
	// the plan is written as it is (a private file, 0600).
	To []string
	// Identities are -identity files: SavePlan keeps an existing sealed
	// plan's file as it is when they open it to the very plan it saves
	// (sealPlan).
	Identities []string
}

// planSeal is the one place that decides whether a plan this workspace
// made is sealed, and to whom: to the recipients its state is sealed to
// once the plan is applied. They are the keyring's (the configuration's
// secrets block) or, when it names none, the state's own, since a sealed
// state is never written back in plain text (state.writeKeyring). A state
// that is plain and stays plain gives a plain plan.
func (w *Workspace) planSeal() (PlanSeal, error) {
	s := PlanSeal{Identities: w.req.Identities}
	if s.To = w.keyring.Recipients(); len(s.To) > 0 {
		return s, nil
	}
	st, err := w.State()
	if err != nil {
		return s, err
	}
	if st != nil {
		s.To = st.Recipients
	}
	return s, nil
}

// SavePlan saves p, a plan this workspace made, sealed as its state is
// (planSeal), and says to whom it is sealed (none: a plain plan).
func (w *Workspace) SavePlan(path string, p *Plan) (sealedTo []string, err error) {
	if err := w.needs(false); err != nil {
		return nil, err
	}
	s, err := w.planSeal()
	if err != nil {
		return nil, fmt.Errorf("saving plan: %w", err)
	}
	return s.To, SavePlan(path, p, s)
}

// LoadPlan reads a saved plan, a sealed one opened with the workspace's
// identities.
func (w *Workspace) LoadPlan(path string) (*Plan, error) { return LoadPlan(path, w.req.Identities) }

// sealPlan is the envelope of plain (a plan file's JSON) sealed to s.To.
//
// age seals under a fresh random key every time, so the same plan sealed
// twice is two different files. When the file at path is already this
// very plan sealed to these recipients — it opens with s.Identities to
// exactly plain, in an envelope exactly as this eggo writes it — that file
// is kept as it is: a plan made again unchanged is the same file, byte for
// byte, as a plain plan is. The GitOps Jobs rely on it to know the same
// plan made again by the hash of the file they publish (controller/jobrun).
// Only a file that opens to the same bytes is kept, so what is kept is the
// plan being saved, whoever wrote the file.
func sealPlan(path string, plain []byte, s PlanSeal) ([]byte, error) {
	to := slices.Compact(slices.Sorted(slices.Values(s.To)))
	if kept := keepSealed(path, plain, to, s.Identities); kept != nil {
		return kept, nil
	}
	rs := make([]age.Recipient, 0, len(to))
	for _, name := range to {
		r, err := state.ParseRecipient(name)
		if err != nil {
			return nil, fmt.Errorf("recipient %s: %w", shortKey(name), err)
		}
		rs = append(rs, r)
	}
	sealed, err := state.SealTo(rs, plain)
	if err != nil {
		return nil, fmt.Errorf("sealing the plan: %w", err)
	}
	return sealedEnvelope(to, sealed)
}

// sealedEnvelope is the file of a plan sealed to recipients to.
func sealedEnvelope(to []string, sealed []byte) ([]byte, error) {
	return encodePlanFile(planFile{FormatVersion: planFileVersion, EggoVersion: Version, SealedTo: to, SealedPlan: sealed})
}

// keepSealed is the file at path when it is plain sealed to recipients to
// (see sealPlan), else nil.
func keepSealed(path string, plain []byte, to, identityFiles []string) []byte {
	if len(identityFiles) == 0 {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var pf planFile
	if json.Unmarshal(data, &pf) != nil || len(pf.SealedPlan) == 0 || !slices.Equal(pf.SealedTo, to) {
		return nil
	}
	if same, err := sealedEnvelope(to, pf.SealedPlan); err != nil || !bytes.Equal(same, data) {
		return nil
	}
	ids, err := readIdentities(identityFiles)
	if err != nil {
		return nil
	}
	if opened, err := openSealed(pf.SealedPlan, ids); err != nil || !bytes.Equal(opened, plain) {
		return nil
	}
	return data
}

// openPlan opens a sealed plan file (pf, read from path) with the
// identities in identityFiles.
func openPlan(path string, pf *planFile, identityFiles []string) (*planFile, error) {
	to := listSome(pf.SealedTo, 3)
	if len(identityFiles) == 0 {
		return nil, fmt.Errorf("%s is a sealed plan (the state's secrets are sealed, and so is a plan of it, to %s): "+
			"give the identity of one of those recipients with -identity=FILE or EGGO_IDENTITY=FILE", path, to)
	}
	ids, err := readIdentities(identityFiles)
	if err != nil {
		return nil, err
	}
	plain, err := openSealed(pf.SealedPlan, ids)
	if _, ok := errors.AsType[*age.NoIdentityMatchError](err); ok {
		return nil, fmt.Errorf("%s is a sealed plan, and no identity given opens it: it is sealed to %s; "+
			"give the identity of one of those recipients with -identity=FILE or EGGO_IDENTITY=FILE", path, to)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: the sealed plan does not open (altered?): %v", path, err)
	}
	var inner planFile
	if err := json.Unmarshal(plain, &inner); err != nil || inner.Plan == nil {
		return nil, fmt.Errorf("%s: the sealed plan is not an eggo plan (%v)", path, err)
	}
	if inner.FormatVersion != pf.FormatVersion || inner.EggoVersion != pf.EggoVersion {
		return nil, fmt.Errorf("%s: the sealed plan's versions are not its envelope's", path)
	}
	return &inner, nil
}

// openSealed decrypts a sealed plan.
func openSealed(sealed []byte, ids []age.Identity) ([]byte, error) {
	r, err := age.Decrypt(bytes.NewReader(sealed), ids...)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// readIdentities reads the identities of -identity files (age identity
// files or SSH private keys), as the keyring does.
func readIdentities(files []string) ([]age.Identity, error) {
	var ids []age.Identity
	for _, f := range files {
		got, err := state.ReadIdentities(expandHome(f))
		if err != nil {
			return nil, err
		}
		ids = append(ids, got...)
	}
	return ids, nil
}
