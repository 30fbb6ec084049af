package commands

import (
	"context"
	"errors"
	"fmt"

	"svc/adapters/llm"
	"svc/domain/credit"
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
	Description  string
	TaskType     string // optional: the caller's task type
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
	repos *Repositories
	llm   llm.Provider
}

// NewEnhanceTaskHandler returns a handler over repos writing rewrites
// with provider.
func NewEnhanceTaskHandler(repos *Repositories, provider llm.Provider) EnhanceTaskHandler {
	if provider == nil {
		panic("commands: nil LLM provider")
	}
	return EnhanceTaskHandler{repos: must(repos), llm: provider}
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
	resp, err := h.llm.Complete(ctx, llm.Request{Kind: llm.KindEnhance, Tier: 2, Description: cmd.Description, TaskType: cmd.TaskType})
	if err != nil {
		return TaskEnhanced{}, fmt.Errorf("%w: %w", ErrEnhanceUnavailable, err)
	}
	enhanced, err := llm.ParseEnhance(resp.Text)
	if err != nil {
		return TaskEnhanced{}, fmt.Errorf("enhance task: %w", err)
	}
	ledger, pos, err := h.repos.Ledgers.Update(ctx, cmd.OrgID, cmd.OrgID, func(l *credit.Ledger) ([]event.Data, error) {
		c, err := l.Charge(credit.Charged{OrgID: cmd.OrgID, Amount: EnhanceCredits, Reason: ReasonEnhance, KeyID: cmd.KeyID})
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
