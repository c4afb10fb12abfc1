package providers

import (
	"fmt"
	"io/fs"

	"github.com/eggo-project/eggo/providers/shell"
)

// Exit codes of the upload finishing script (UploadFinishCommand), so the
// error can say what failed.
const (
	UploadExitNoChecksum = 90 // sha256sum of the temporary file failed
	UploadExitMismatch   = 91 // the digest is not the expected one
	UploadExitInstall    = 92 // chmod or the rename into place failed
)

// uploadFinish checks the uploaded temporary file, installs it, and
// removes it on any failure. It prints the digest it computed on stdout.
// Its exit codes are the Upload* constants above.
const uploadFinish = `t=$1 d=$2 want=$3 mode=$4
got=$(sha256sum <"$t") || { rm -f -- "$t"; exit 90; }
got=${got%% *}
printf '%s\n' "$got"
[ "$got" = "$want" ] || { rm -f -- "$t"; exit 91; }
chmod "$mode" -- "$t" && mv -f -- "$t" "$d" || { rm -f -- "$t"; exit 92; }`

// UploadFinishCommand is the command line that checks the temporary file
// tmp against the lower-case hex sha256 want and installs it as dst with
// mode, run once the transport has written tmp (with cat). It fails with
// one of the UploadExit* codes.
func UploadFinishCommand(tmp, dst, want string, mode fs.FileMode) string {
	return "sh -c " + shell.Quote(uploadFinish) + " eggo " + shell.Quote(tmp) + " " + shell.Quote(dst) + " " + shell.Quote(want) + " " + fmt.Sprintf("%04o", UnixMode(mode))
}
