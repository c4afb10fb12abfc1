package resources

// The transports register themselves with providers; every kind reaches
// hosts through them.
import (
	_ "github.com/eggo-project/eggo/providers/local"
	_ "github.com/eggo-project/eggo/providers/ssh"
)
