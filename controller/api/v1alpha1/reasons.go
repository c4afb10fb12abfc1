package v1alpha1

// Reasons of an EggoCluster's conditions.
//
// Planned, ApprovalPending, Applying and Ready are derived on every
// reconcile from facts the status holds (activeJob and activeJobPhase, the
// plan and applied hashes, observedGeneration, the approval annotation,
// the plan's summary, lastFailure and lastFailureReason, the deletion):
// nothing else writes them. Ready is True only with ReasonApplied or
// ReasonNoChanges. Failed records an event instead: a run failed (its
// reason is that of lastFailureReason), until a later run succeeds
// (ReasonNoFailure).
const (
	// ReasonNotPlanned: the spec's current generation has no plan yet
	// (none was made, or the spec changed since the last one).
	ReasonNotPlanned = "NotPlanned"
	// ReasonPlanning: a plan Job runs.
	ReasonPlanning = "Planning"
	// ReasonPlanReady: the last plan Job published a plan
	// (status.lastPlanHash, status.planRef).
	ReasonPlanReady = "PlanReady"
	// ReasonPlanFailed: the last plan Job failed, or its plan could not be
	// read.
	ReasonPlanFailed = "PlanFailed"
	// ReasonInvalidSpec: the spec's references are wrong (a Secret of the
	// wrong type, a missing ConfigMap key): no Job was started.
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonAwaitingApproval: the plan has changes and waits for the
	// annotation eggo.io/approve-plan naming its hash.
	ReasonAwaitingApproval = "AwaitingApproval"
	// ReasonApproved: the plan is approved; its apply Job starts or runs.
	ReasonApproved = "Approved"
	// ReasonApplying: an apply Job runs.
	ReasonApplying = "Applying"
	// ReasonApplied: the current plan was applied in full.
	ReasonApplied = "Applied"
	// ReasonApplyFailed: the current plan's apply failed; it is not
	// applied again.
	ReasonApplyFailed = "ApplyFailed"
	// ReasonNoChanges: the current plan changes nothing.
	ReasonNoChanges = "NoChanges"
	// ReasonDestroying: the EggoCluster is being deleted (its destroy Job
	// starts or runs).
	ReasonDestroying = "Destroying"
	// ReasonDestroyFailed: the destroy Job failed.
	ReasonDestroyFailed = "DestroyFailed"
	// ReasonJobLost: the running Job disappeared before its outcome was
	// seen.
	ReasonJobLost = "JobLost"
	// ReasonJobRunning: one of the cluster's Jobs runs, so it is not Ready.
	ReasonJobRunning = "JobRunning"
	// ReasonNoFailure: Failed is False: a run succeeded after the last
	// failure.
	ReasonNoFailure = "NoFailure"
	// ReasonFailed stands for a failure whose reason the status does not
	// hold (recorded before lastFailureReason existed).
	ReasonFailed = "Failed"
)
