package command

import "testing"

// TestConfigWarningsShownAndNotFatal: a warning of the configuration (here
// an even number of etcd members) reaches the user with its source line,
// and validate and plan still succeed.
func TestConfigWarningsShownAndNotFatal(t *testing.T) {
	f := newFixture(t)
	f.write("more.hcl", `node "n2" {
  address = "127.0.0.2"
  roles   = ["master", "etcd"]
}
`)
	r := f.mustRun(0, "validate")
	mustContain(t, "validate stdout", r.out, "Success!")
	mustContain(t, "validate stderr", r.err, "Warning: Even number of etcd nodes", "on more.hcl line 3", "has 2 etcd nodes")

	r = f.mustRun(0, "plan", "-refresh=false")
	mustContain(t, "plan stdout", r.out, "Plan: ")
	mustContain(t, "plan stderr", r.err, "Warning: Even number of etcd nodes")
}
