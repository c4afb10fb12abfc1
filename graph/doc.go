// Package graph is the dependency graph under eggo's engine: a DAG of named
// vertices (resource addresses such as "host.m0"), a stable topological
// order, readable cycle errors and a bounded parallel walk.
//
// Edge direction is fixed in one place: Connect(a, b) means "a depends on b",
// so b runs first on apply. Reverse flips every edge for destroy.
//
// The storage and ordering are the package's own, flat lists; gonum (topo)
// finds the cycles of a graph that has some. No gonum type appears in this
// package's API, so callers depend only on names.
//
// A Graph is not safe for concurrent mutation. Reading it (including several
// concurrent Walks) is safe once it is no longer being changed.
package graph
