package resources

import (
	"context"
	"strings"

	"github.com/eggo-project/eggo/providers"
)

// RunScript runs a shell script on the host, fed on stdin to `sh -s`
// rather than passed as one argument: a probe of a large bundle is
// hundreds of kilobytes, past Linux's 128 KiB limit on one argument.
func RunScript(ctx context.Context, conn providers.Conn, script string, mutates bool) (string, error) {
	var out strings.Builder
	err := conn.Run(ctx, providers.Command{Cmd: "sh -s", Stdin: strings.NewReader(script), Stdout: &out, Mutates: mutates})
	return out.String(), err
}
