package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/deletion"
	"svc/domain/org"
	"svc/eventstore"
	"svc/eventstore/event"
)

// Organizations is the read model of organizations: tier, email,
// verification, the payment processor's subscription and customer, and
// whether the organization is being erased (erasing_since: its keys and
// sessions fail from then on).
type Organizations struct{}

// SchemaVersion implements Versioned: 2 added subscription_id and
// billing_customer_id (subscription_status is moved by the processor's
// events); 3 added erasing_since (DeletionConfirmed).
func (Organizations) SchemaVersion() int { return 3 }

// Name implements Projection.
func (Organizations) Name() string { return "organizations" }

// Tables implements Projection.
func (Organizations) Tables() []Table {
	return []Table{{
		Name: "organizations",
		DDL: `org_id uuid PRIMARY KEY,
			name text NOT NULL,
			email text,
			email_verified boolean NOT NULL DEFAULT false,
			tier text NOT NULL,
			subscription_status text NOT NULL DEFAULT 'active',
			subscription_id text,
			billing_customer_id text,
			workspace_id uuid NOT NULL,
			created_at timestamptz NOT NULL,
			updated_at timestamptz NOT NULL,
			erasing_since timestamptz`,
		Indexes: []string{`CREATE INDEX {{table}}_email ON {{table}} (lower(email))`},
	}}
}

// EventTypes implements Projection.
func (Organizations) EventTypes() []string {
	return []string{org.EventCreated, org.EventEmailVerified, org.EventTierChanged, org.EventSubscriptionChanged, org.EventCustomerLinked,
		deletion.EventConfirmed}
}

// Apply implements Projection.
func (Organizations) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	table := t.Of("organizations")
	b := &pgx.Batch{}
	for _, e := range events {
		switch d := e.Payload.(type) {
		case org.Created:
			b.Queue(`INSERT INTO `+table+` (org_id, name, email, tier, workspace_id, created_at, updated_at)
				VALUES ($1, $2, nullif($3, ''), $4, $5, $6, $6)`, d.OrgID, d.Name, d.Email, d.Tier, d.WorkspaceID, e.RecordedAt)
		case org.EmailVerified:
			b.Queue(`UPDATE `+table+` SET email_verified = true, updated_at = $2 WHERE org_id = $1`, e.Metadata.OrgID, e.RecordedAt)
		case org.TierChanged:
			b.Queue(`UPDATE `+table+` SET tier = $2, updated_at = $3 WHERE org_id = $1`, e.Metadata.OrgID, d.To, e.RecordedAt)
		case org.SubscriptionChanged:
			if d.Current { // the end of a subscription that is not the org's changes nothing shown
				b.Queue(`UPDATE `+table+` SET subscription_status = $2, subscription_id = $3,
					billing_customer_id = coalesce(nullif($4, ''), billing_customer_id), updated_at = $5 WHERE org_id = $1`,
					e.Metadata.OrgID, d.Status, d.SubscriptionID, d.CustomerID, e.RecordedAt)
			}
		case org.CustomerLinked:
			b.Queue(`UPDATE `+table+` SET billing_customer_id = $2, updated_at = $3 WHERE org_id = $1`, e.Metadata.OrgID, d.CustomerID, e.RecordedAt)
		case deletion.Confirmed:
			b.Queue(`UPDATE `+table+` SET erasing_since = $2, updated_at = $2 WHERE org_id = $1`, d.OrgID, e.RecordedAt)
		}
	}
	return sendBatch(ctx, tx, b)
}

func sendBatch(ctx context.Context, tx pgx.Tx, b *pgx.Batch) error {
	if b.Len() == 0 {
		return nil
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("apply batch: %w", err)
	}
	return nil
}

// OrgRow is one organization as the read model has it.
type OrgRow struct {
	OrgID         string
	Name          string
	Email         string
	EmailVerified bool
	Tier          org.Tier
	Status        string // subscription status: active (also without a subscription), past_due, cancelled
	// SubscriptionID and CustomerID are the processor's ("" when none).
	SubscriptionID string
	CustomerID     string
	WorkspaceID    string
	CreatedAt      time.Time
}

// ErrNotFound means a read model has no such row.
var ErrNotFound = errors.New("not found")

// Organization returns one organization.
func Organization(ctx context.Context, db eventstore.DB, orgID string) (OrgRow, error) {
	var r OrgRow
	var email *string
	err := db.QueryRow(ctx, `SELECT org_id::text, name, email, email_verified, tier, subscription_status,
			coalesce(subscription_id, ''), coalesce(billing_customer_id, ''), workspace_id::text, created_at
		FROM organizations WHERE org_id = $1`, orgID).
		Scan(&r.OrgID, &r.Name, &email, &r.EmailVerified, &r.Tier, &r.Status, &r.SubscriptionID, &r.CustomerID, &r.WorkspaceID, &r.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return OrgRow{}, ErrNotFound
	}
	if err != nil {
		return OrgRow{}, fmt.Errorf("read organization: %w", err)
	}
	if email != nil {
		r.Email = *email
	}
	return r, nil
}
