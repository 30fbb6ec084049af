package commands

import (
	"strings"

	"context"
	"fmt"
	"svc/domain/workflow"

	"svc/domain/credit"
	"svc/domain/org"
	"svc/eventstore"
)

// GrantCredits adds credits to an organization's ledger (operator top-up,
// purchases).
type GrantCredits struct {
	OrgID  string
	Amount int64
	Reason string
	Note   string
}

// CreditsGranted is the outcome of GrantCredits.
type CreditsGranted struct {
	Balance  int64
	Position eventstore.Position
}

// GrantCreditsHandler handles GrantCredits.
type GrantCreditsHandler struct {
	store *eventstore.Store
}

// NewGrantCreditsHandler returns a handler appending to store.
func NewGrantCreditsHandler(store *eventstore.Store) GrantCreditsHandler {
	if store == nil {
		panic("nil event store")
	}
	return GrantCreditsHandler{store: store}
}

// Handle grants to an existing organization.
func (h GrantCreditsHandler) Handle(ctx context.Context, cmd GrantCredits) (CreditsGranted, error) {
	if err := mustExist(ctx, h.store, cmd.OrgID); err != nil {
		return CreditsGranted{}, err
	}
	var out CreditsGranted
	err := eventstore.Retry(ctx, attempts, func() error {
		ledger, err := loadLedger(ctx, h.store, cmd.OrgID)
		if err != nil {
			return err
		}
		g, err := ledger.Grant(cmd.Amount, cmd.Reason, cmd.Note)
		if err != nil {
			return err
		}
		pos, err := h.store.Append(ctx, credit.Stream(cmd.OrgID), ledger.Version(),
			eventstore.NewEvent{Type: credit.EventGranted, Data: g, Metadata: meta(ctx, cmd.OrgID)})
		out = CreditsGranted{Balance: ledger.Balance() + g.Amount, Position: pos}
		return err
	})
	if err != nil {
		return CreditsGranted{}, fmt.Errorf("grant credits: %w", err)
	}
	return out, nil
}

func loadLedger(ctx context.Context, store *eventstore.Store, orgID string) (*credit.Ledger, error) {
	return ledgers.load(ctx, store, store.Pool(), credit.Stream(orgID))
}

// LoadLedger folds an org's ledger read through db (a transaction that is
// about to append to it), from the cache and the events since.
func LoadLedger(ctx context.Context, store *eventstore.Store, db eventstore.DB, orgID string) (*credit.Ledger, error) {
	return ledgers.load(ctx, store, db, credit.Stream(orgID))
}

// ledgers caches folded ledgers: a busy org's stream grows by a charge per
// step, and a charge should not re-read all of it.
var ledgers = newFoldCache(50_000, func(stream string) *credit.Ledger {
	return credit.New(strings.TrimPrefix(stream, "credits-"))
})

// slots caches folded active-workflow sets, for the concurrent limit.
var slots = newFoldCache(50_000, func(string) *workflow.Slots { return workflow.NewSlots() })

// mustExist returns org.ErrNotFound unless the organization has a stream.
func mustExist(ctx context.Context, store *eventstore.Store, orgID string) error {
	_, err := loadOrg(ctx, store, orgID)
	return err
}

func loadOrg(ctx context.Context, store *eventstore.Store, orgID string) (*org.Organization, error) {
	if orgID == "" {
		return nil, org.ErrNotFound
	}
	events, err := store.Load(ctx, org.Stream(orgID))
	if err != nil {
		return nil, err
	}
	return org.Load(events)
}
