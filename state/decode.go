package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// Read reads the state file at path. When there is no file yet it returns
// an error for which errors.Is(err, fs.ErrNotExist) holds; start from New()
// then. A file written by a newer eggo is refused with *NewerFormatError, a
// damaged one with *CorruptError that points at the backup.
func Read(path string) (*State, error) { return ReadWith(path, nil) }

// ReadWith is Read opening the sealed values with k's identities; those it
// cannot open stay sealed (see State.Unreadable).
func ReadWith(path string, k *Keyring) (*State, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no state yet: %s does not exist: %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("reading state: %w", err)
	}
	s, err := DecodeWith(data, path, k)
	var corrupt *CorruptError
	if errors.As(err, &corrupt) {
		corrupt.Backup = backupPath(path)
		_, statErr := os.Stat(corrupt.Backup)
		corrupt.BackupExists = statErr == nil
	}
	return s, err
}

// Decode reads a state from data, upgrading older formats in memory; name
// is the file (or other source) it came from, for messages. The result is
// normalized: Resources sorted by Address, Dependencies and Sensitive
// sorted, Attributes never nil.
func Decode(data []byte, name string) (*State, error) { return DecodeWith(data, name, nil) }

// DecodeWith is Decode opening the sealed values with k's identities.
func DecodeWith(data []byte, name string, k *Keyring) (*State, error) {
	version, err := peekVersion(data, name)
	if err != nil {
		return nil, err
	}
	if version > FormatVersion {
		return nil, &NewerFormatError{Path: name, Format: version}
	}
	if version < 0 {
		return nil, corruptAt(name, data, -1, fmt.Sprintf("format version %d is not valid", version), nil)
	}
	for v := version; v < FormatVersion; v++ {
		upgraded, err := upgrades[v](data)
		if err != nil {
			// Only the first step reads the file's own bytes, so only
			// its offsets mean anything to the user.
			var syntax *syntaxError
			switch {
			case v == version && errors.As(err, &syntax):
				return nil, corruptAt(name, data, int64(syntax.offset), syntax.msg, err)
			case v == version:
				return nil, jsonProblem(name, data, fmt.Sprintf("reading format %d", v), err)
			}
			return nil, corruptAt(name, data, -1, fmt.Sprintf("upgrading from format %d: %v", v, err), err)
		}
		data = upgraded
	}
	s, err := decodeCurrent(data, name)
	if err != nil {
		return nil, err
	}
	normalize(s)
	problem := validate(s)
	if problem == "" {
		problem = validateRead(s)
	}
	if problem != "" {
		return nil, corruptAt(name, data, -1, problem, nil)
	}
	s.plainOnRead = countPlain(s)
	if k != nil {
		openState(s, k)
	}
	return s, nil
}

// peekVersion reads only the format version, so that a newer file is
// refused before its unknown shape produces a confusing error. It reads
// tokens only up to that key, which eggo writes first, so it costs nothing
// next to the full decode.
func peekVersion(data []byte, name string) (int, error) {
	v, err := findVersion(data)
	var inKey *versionKeyError
	switch {
	case err == nil:
		return v.version, nil
	case errors.Is(err, errNotObject):
		return 0, corruptAt(name, data, 0, "the file is not a JSON object", nil)
	case errors.Is(err, errNoVersion):
		return 0, corruptAt(name, data, -1, "format_version is missing", nil)
	case errors.As(err, &inKey):
		return 0, jsonProblem(name, data, inKey.key, inKey.err)
	}
	return 0, jsonProblem(name, data, "", err)
}

// versionField is the top-level version of a file and where its value's
// bytes are (data[start:end]). Files of format 0 said "version" where
// later ones say "format_version".
type versionField struct {
	version    int
	start, end int
}

var (
	errNotObject = errors.New("not a JSON object")
	errNoVersion = errors.New("format_version is missing")
)

// versionKeyError is a version whose value is not a number.
type versionKeyError struct {
	key string
	err error
}

func (e *versionKeyError) Error() string { return e.key + ": " + e.err.Error() }

// findVersion finds the version field among data's top-level members.
func findVersion(data []byte) (versionField, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		if err == nil {
			err = errNotObject
		}
		return versionField{}, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return versionField{}, err
		}
		key, _ := tok.(string)
		if key == "format_version" || key == "version" {
			start := int(dec.InputOffset())
			var v versionField
			if err := dec.Decode(&v.version); err != nil {
				return versionField{}, &versionKeyError{key, err}
			}
			if start = skipBlanks(data, start); start < len(data) && data[start] == ':' {
				start = skipBlanks(data, start+1)
			}
			v.start, v.end = start, int(dec.InputOffset())
			return v, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return versionField{}, err
		}
	}
	return versionField{}, errNoVersion
}

// decodeCurrent decodes a file of the current format. Unknown fields are
// refused: keeping them would need a newer format, dropping them would lose
// data on the next write.
func decodeCurrent(data []byte, name string) (*State, error) {
	p := jsonReader{data: data, current: true}
	s, err := p.state()
	if err != nil {
		var syntax *syntaxError
		if errors.As(err, &syntax) {
			return nil, corruptAt(name, data, int64(syntax.offset), syntax.msg, err)
		}
		return nil, corruptAt(name, data, -1, err.Error(), err)
	}
	if !p.resolvedAll {
		// The table came after the resources (a file eggo did not write).
		if err := resolveShared(s, s.Shared); err != nil {
			return nil, corruptAt(name, data, -1, err.Error(), err)
		}
	}
	s.Shared = nil
	return s, nil
}

// jsonProblem turns an encoding/json error into a CorruptError with the
// position of the problem when the error carries one.
func jsonProblem(name string, data []byte, context string, err error) *CorruptError {
	problem := strings.TrimPrefix(err.Error(), "json: ")
	if context != "" {
		problem = context + ": " + problem
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax) && syntax.Error() == "unexpected end of JSON input":
		return corruptAt(name, data, syntax.Offset, "the file ends too early (truncated?)", err)
	case errors.As(err, &syntax):
		return corruptAt(name, data, syntax.Offset, problem, err)
	case errors.As(err, &typ):
		return corruptAt(name, data, typ.Offset, problem, err)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return corruptAt(name, data, int64(len(data)), "the file ends too early (truncated?)", err)
	}
	return corruptAt(name, data, -1, problem, err)
}

// normalize puts a freshly decoded state in canonical order, in place.
func normalize(s *State) {
	if s.Resources == nil {
		s.Resources = []Resource{}
	}
	for i := range s.Resources {
		r := &s.Resources[i]
		slices.Sort(r.Dependencies)
		slices.Sort(r.Sensitive)
		if len(r.Sealed) == 0 {
			r.Sealed = nil
		}
		if r.Attributes == nil {
			r.Attributes = map[string]any{}
		}
	}
	slices.SortStableFunc(s.Resources, compareAddress)
	slices.Sort(s.Recipients)
	slices.Sort(s.SensitiveOutputs)
	if len(s.SealedOutputs) == 0 {
		s.SealedOutputs = nil
	}
	if len(s.HostKeys) == 0 {
		s.HostKeys = nil
	}
}
