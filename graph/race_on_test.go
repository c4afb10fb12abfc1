//go:build race

package graph

// raceEnabled lets timing tests step aside: the race detector slows the
// scheduler several times over, which says nothing about its real speed.
const raceEnabled = true
