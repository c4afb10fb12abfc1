package host

import (
	// The real local transport: the end-to-end tests run over it as well
	// as over the sh -c double.
	_ "github.com/eggo-project/eggo/providers/local"
)

func init() { hostTransports = append(hostTransports, "local") }
