// Package hookcheck measures eggo's check hooks: the `web` and `prometheus`
// hooks of bcs-hook-operator, whose semantics follow Argo Rollouts' analysis.
//
// A Spec names one provider (a web endpoint or a Prometheus instant query),
// how often to measure it (Count, Interval, InitialDelay), how to judge each
// value (SuccessCondition, FailureCondition over `result`) and how many bad
// measurements the hook tolerates (FailureLimit, InconclusiveLimit,
// ConsecutiveErrorLimit). Run performs the measurement loop and returns a
// Result whose Phase is Successful, Failed, Inconclusive or Error.
//
// The package is a library: the HCL `hook` block, its place in the graph
// and its state record are built on top of Validate, Render and Run.
// website/hooks-checks.md documents the semantics for users.
package hookcheck
