package commands

import (
	"errors"
	"time"

	"svc/domain/credit"
	"svc/domain/org"
	"svc/domain/workspace"
	"svc/eventstore"
)

// reserveRun is reserve for the run of workflow id of workspace wsID on an
// organization of tier: the reservation names the workspace, and on the
// tiers that have budgets (Team, Enterprise) what it adds must fit what is
// left of the workspace's monthly budget (credit.Ledger.ReserveIn), else a
// *credit.BudgetExceededError. The budget is read from the workspace's
// stream before the org's lock is taken; the ledger's check runs under
// it, so two runs racing for the last credits of a budget cannot both
// pass (a budget changed meanwhile applies from the next reservation).
func reserveRun(tx *eventstore.Tx, repos *Repositories, orgID, wsID, tier, id string, amount int) error {
	var b credit.Budget
	if amount > 0 && wsID != "" {
		var err error
		if b, err = workspaceBudget(tx, repos, orgID, wsID, org.Tier(tier), time.Now()); err != nil {
			return err
		}
	}
	return reserve(tx, repos, orgID, id, amount, b)
}

// workspaceBudget is the budget a reservation of workspace wsID is
// checked against at now: its monthly budget when tier has budgets, no
// limit otherwise (or for a workspace the log does not have: workflows of
// tests and of the time before workspaces).
func workspaceBudget(tx *eventstore.Tx, repos *Repositories, orgID, wsID string, tier org.Tier, now time.Time) (credit.Budget, error) {
	b := credit.Budget{WorkspaceID: wsID, Month: credit.MonthOf(now)}
	if !workspace.BudgetsAllowed(tier) {
		return b, nil
	}
	w, err := repos.Workspaces.LoadOwned(tx, orgID, wsID)
	if errors.Is(err, workspace.ErrNotFound) {
		return b, nil
	}
	if err != nil {
		return b, err
	}
	b.Limit = w.Budget()
	return b, nil
}

// monthOf is the month a charge of workspace wsID made at t names
// (credit.Charged.Month): "" for a charge of no workspace.
func monthOf(wsID string, t time.Time) string {
	if wsID == "" {
		return ""
	}
	return credit.MonthOf(t)
}
