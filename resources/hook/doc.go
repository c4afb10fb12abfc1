// Package hook is the hook model — events (pre|post × deploy, join,
// delete, cleanup, upgrade), scopes, policies, shell and check hooks — and
// how a shell hook reaches its host over the run's connections. The engine
// places hooks on the edges of the plan; hookrun and hookcheck run them.
// It imports the resources core, hookrun and hookcheck only.
package hook
