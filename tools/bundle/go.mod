// Test-only tools for eggo's offline bundle (the pause program and the OCI
// image archive writer). A module of its own so that eggo's build and import
// rules do not see it; standard library only.
module github.com/eggo-project/eggo/tools/bundle

go 1.26
