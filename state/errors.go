package state

import (
	"bytes"
	"fmt"
)

// NewerFormatError refuses a state written by a newer eggo: reading it
// would silently drop whatever that eggo added.
type NewerFormatError struct {
	Path   string
	Format int // the file's format version
}

func (e *NewerFormatError) Error() string {
	return fmt.Sprintf("%s was written by a newer eggo (format %d, this eggo reads up to %d): upgrade eggo",
		e.Path, e.Format, FormatVersion)
}

// CorruptError refuses a state file that is not a valid state: bad JSON,
// a missing lineage, duplicate addresses and the like.
type CorruptError struct {
	Path string
	// Offset is the byte offset of the problem in the file and Line and
	// Column its position (1-based); Offset is -1 when the problem has no
	// single place (a missing lineage).
	Offset       int64
	Line, Column int
	Problem      string
	// Backup is the backup file beside Path, set by Read (not by Decode,
	// which has no file); BackupExists says whether it is there.
	Backup       string
	BackupExists bool
	Err          error // the underlying decode error, if any
}

func (e *CorruptError) Error() string {
	msg := e.Path + " is corrupt"
	if e.Offset >= 0 {
		msg += fmt.Sprintf(" at line %d, column %d (byte %d)", e.Line, e.Column, e.Offset)
	}
	msg += ": " + e.Problem
	switch {
	case e.Backup != "" && e.BackupExists:
		msg += "; the previous state is in " + e.Backup
	case e.Backup != "":
		msg += "; there is no backup (" + e.Backup + " does not exist)"
	}
	return msg
}

func (e *CorruptError) Unwrap() error { return e.Err }

// corruptAt returns a CorruptError for a problem at offset in data
// (offset < 0 when it has no place).
func corruptAt(name string, data []byte, offset int64, problem string, err error) *CorruptError {
	e := &CorruptError{Path: name, Offset: -1, Problem: problem, Err: err}
	if offset >= 0 && offset <= int64(len(data)) {
		e.Offset = offset
		e.Line, e.Column = position(data, offset)
	}
	return e
}

// position returns the 1-based line and column of byte offset in data.
func position(data []byte, offset int64) (line, column int) {
	before := data[:offset]
	line = 1 + bytes.Count(before, []byte{'\n'})
	column = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, column
}
