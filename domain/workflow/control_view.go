package workflow

import "strconv"

// Approval statuses of the Workflow resource and listing summaries.
const (
	ApprovalNotRequired = "not_required"
	ApprovalRequired    = "required" // gates ahead, none reached yet
	ApprovalPending     = "pending"
	ApprovalApproved    = "approved"
	ApprovalRejected    = "rejected"
)

// viewControl adds the fields of workflow control to v.
func (w *Workflow) viewControl(v *View) {
	gates := w.planned.ApprovalGates
	if w.Interactive() {
		gates = nil // each step is asked for: no gates
	}
	v.ApprovalGates = gates
	switch {
	case w.rejected != nil:
		v.ApprovalStatus = ApprovalRejected
	case w.status == StatusPendingApproval:
		v.ApprovalStatus = ApprovalPending
	case len(gates) == 0:
		v.ApprovalStatus = ApprovalNotRequired
	case len(w.passed) > 0:
		v.ApprovalStatus = ApprovalApproved
	default:
		v.ApprovalStatus = ApprovalRequired
	}
	if w.revision != "" {
		rg := w.revision
		v.RevisionGuidance = &rg
	}
	if w.status == StatusPendingApproval && w.pending != nil {
		step := w.pending.Step
		v.PendingApprovalStep = &step
		v.Deliverable = w.pending.Deliverable
	}
	var msg string
	switch {
	case w.rejected != nil:
		v.HaltReason = "rejected"
		step := w.rejected.Gate + 1
		v.HaltedAtStep = &step
		msg = "Rejected at the approval gate before step " + strconv.Itoa(step)
		if w.rejected.Notes != "" {
			msg += ": " + w.rejected.Notes
		}
		msg += "; no further steps ran."
	case w.cancelled != nil:
		msg = "Cancelled (was " + w.cancelled.From + ")."
	case w.aborted != nil:
		msg = "Aborted by the caller after " + strconv.Itoa(w.aborted.StepsCompleted) + " of " + strconv.Itoa(w.aborted.TotalSteps) + " steps."
	case w.status == StatusTimedOut:
		msg = "The interactive session was idle past its limit and timed out; resume it to run the remaining steps."
	}
	if msg != "" {
		v.Error = &msg
	}
}
