// Command eggo deploys Kubernetes clusters onto machines reached over SSH as
// a declarative plan/apply engine. See README.md.
package main

import (
	"os"

	"github.com/eggo-project/eggo/command"
)

func main() { os.Exit(realMain()) }

func realMain() int {
	return command.Run(os.Args[1:], command.StdStreams())
}
