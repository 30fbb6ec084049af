package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svc/adapters/llm"
	"svc/domain/credit"
	"svc/domain/planning"
	"svc/eventstore/event"
)

// EnhanceCredits is the price of enhance's llm tier.
const EnhanceCredits = 270

// ReasonEnhance is the ledger reason of an llm-tier enhance charge.
const ReasonEnhance = "enhance_llm"

// ErrEnhanceUnavailable wraps a failed call of the LLM port: nothing was
// charged, and a retry may succeed.
var ErrEnhanceUnavailable = errors.New("the LLM could not rewrite the description")

// EnhanceTask rewrites a task description with the LLM (enhance's llm
// tier) and charges EnhanceCredits for the rewrite.
type EnhanceTask struct {
	OrgID, KeyID string
	// WorkspaceID is the caller's workspace: the charge counts against its
	// monthly budget (it is not refused by it: only runs are).
	WorkspaceID string
	Description string
	TaskType    string // optional: the caller's task type
}

// TaskEnhanced is the outcome of EnhanceTask.
type TaskEnhanced struct {
	Enhanced string // the rewritten description
	Credits  int64  // charged: EnhanceCredits
	Balance  int64  // the spendable balance after the charge
	Position event.Position
}

// EnhanceTaskHandler handles EnhanceTask.
type EnhanceTaskHandler struct {
	repos  *Repositories
	llm    llm.Provider
	models planning.Models // what llm policies route to (WithEnhanceModels)
}

// NewEnhanceTaskHandler returns a handler over repos writing rewrites
// with provider.
func NewEnhanceTaskHandler(repos *Repositories, provider llm.Provider, opts ...EnhanceOption) EnhanceTaskHandler {
	if provider == nil {
		panic("commands: nil LLM provider")
	}
	h := EnhanceTaskHandler{repos: must(repos), llm: provider}
	for _, o := range opts {
		o(&h)
	}
	return h
}

// Handle refuses with an *InsufficientCreditsError when the spendable
// balance (what the org's runs hold in reservation is not spendable) does
// not cover EnhanceCredits, then has the LLM rewrite the description and
// charges for it: the charge follows a rewrite that succeeded, so a failed
// call (ErrEnhanceUnavailable) or an empty answer costs nothing.
func (h EnhanceTaskHandler) Handle(ctx context.Context, cmd EnhanceTask) (TaskEnhanced, error) {
	ledger, err := h.repos.Ledgers.Get(ctx, cmd.OrgID)
	if err != nil {
		return TaskEnhanced{}, fmt.Errorf("enhance task: %w", err)
	}
	if ledger.Balance() < EnhanceCredits {
		return TaskEnhanced{}, insufficient(ledger, EnhanceCredits)
	}
	req := llm.Request{Kind: llm.KindEnhance, Tier: 2, Description: cmd.Description, TaskType: cmd.TaskType}
	routing, err := routingIn(ctx, h.repos, h.models, cmd.OrgID, cmd.WorkspaceID) // the workspace's llm policy (set_llm_policy.go)
	if err != nil {
		return TaskEnhanced{}, fmt.Errorf("enhance task: %w", err)
	}
	if routing != nil {
		req.Model = routing.For(2).Model
	}
	resp, err := h.llm.Complete(ctx, req)
	if err != nil {
		return TaskEnhanced{}, fmt.Errorf("%w: %w", ErrEnhanceUnavailable, err)
	}
	enhanced, err := llm.ParseEnhance(resp.Text)
	if err != nil {
		return TaskEnhanced{}, fmt.Errorf("enhance task: %w", err)
	}
	ledger, pos, err := h.repos.Ledgers.Update(ctx, cmd.OrgID, cmd.OrgID, func(l *credit.Ledger) ([]event.Data, error) {
		c, err := l.Charge(credit.Charged{OrgID: cmd.OrgID, Amount: EnhanceCredits, Reason: ReasonEnhance, KeyID: cmd.KeyID,
			WorkspaceID: cmd.WorkspaceID, Month: monthOf(cmd.WorkspaceID, time.Now())})
		if errors.Is(err, credit.ErrInsufficient) {
			return nil, insufficient(l, EnhanceCredits)
		}
		return []event.Data{c}, err
	})
	if err != nil {
		return TaskEnhanced{}, fmt.Errorf("enhance task: %w", err)
	}
	return TaskEnhanced{Enhanced: enhanced, Credits: EnhanceCredits, Balance: ledger.Balance(), Position: pos}, nil
}
