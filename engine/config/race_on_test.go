//go:build race

package config

// raceEnabled relaxes timing assertions: the race detector slows code 5-10x.
const raceEnabled = true
