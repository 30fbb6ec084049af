package commands

import (
	"context"
	"fmt"

	"svc/domain/org"
	"svc/eventstore/event"
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
	Position event.Position
}

// ChangeTierHandler handles ChangeTier.
type ChangeTierHandler struct{ repos *Repositories }

// NewChangeTierHandler returns a handler over repos.
func NewChangeTierHandler(repos *Repositories) ChangeTierHandler {
	return ChangeTierHandler{repos: must(repos)}
}

// Handle changes the tier; asking for the current tier is a no-op.
func (h ChangeTierHandler) Handle(ctx context.Context, cmd ChangeTier) (TierChanged, error) {
	var out TierChanged
	_, pos, err := h.repos.Orgs.Update(ctx, cmd.OrgID, cmd.OrgID, func(o *org.Organization) ([]event.Data, error) {
		change, ok, err := o.ChangeTier(cmd.Tier, cmd.Source)
		out = TierChanged{From: o.Tier(), To: cmd.Tier, Changed: ok}
		if err != nil || !ok {
			return nil, err
		}
		return []event.Data{change}, nil
	})
	if err != nil {
		return TierChanged{}, fmt.Errorf("change tier: %w", err)
	}
	out.Position = pos
	return out, nil
}
