package commands

import (
	"context"
	"fmt"

	"svc/domain/org"
	"svc/eventstore"
)

// ChangeTier sets an organization's subscription tier.
type ChangeTier struct {
	OrgID  string
	Tier   org.Tier
	Source string // "operator" for a manual change, "billing" for the processor
}

// TierChanged is the outcome of ChangeTier.
type TierChanged struct {
	From, To org.Tier
	Changed  bool // false when the org already had the tier (nothing appended)
	Position eventstore.Position
}

// ChangeTierHandler handles ChangeTier.
type ChangeTierHandler struct {
	store *eventstore.Store
}

// NewChangeTierHandler returns a handler appending to store.
func NewChangeTierHandler(store *eventstore.Store) ChangeTierHandler {
	if store == nil {
		panic("nil event store")
	}
	return ChangeTierHandler{store: store}
}

// Handle changes the tier; asking for the current tier is a no-op.
func (h ChangeTierHandler) Handle(ctx context.Context, cmd ChangeTier) (TierChanged, error) {
	var out TierChanged
	err := eventstore.Retry(ctx, attempts, func() error {
		o, err := loadOrg(ctx, h.store, cmd.OrgID)
		if err != nil {
			return err
		}
		change, ok, err := o.ChangeTier(cmd.Tier, cmd.Source)
		if err != nil {
			return err
		}
		out = TierChanged{From: o.Tier(), To: cmd.Tier, Changed: ok}
		if !ok {
			return nil
		}
		out.Position, err = h.store.Append(ctx, org.Stream(cmd.OrgID), o.Version(),
			eventstore.NewEvent{Type: org.EventTierChanged, Data: change, Metadata: meta(ctx, cmd.OrgID)})
		return err
	})
	if err != nil {
		return TierChanged{}, fmt.Errorf("change tier: %w", err)
	}
	return out, nil
}
