package webhooks

import (
	"context"
	"fmt"
	"time"
)

// releaseTimeout bounds handing a lease back, which happens while
// stopping too.
const releaseTimeout = 5 * time.Second

// claim takes the lease of delivery id if it is free, expired or a stale
// one of this dispatcher (whose release failed; try never runs a delivery
// twice at once in one process).
func (d *Dispatcher) claim(ctx context.Context, id string) (bool, error) {
	tag, err := d.store.Pool().Exec(ctx, `INSERT INTO delivery_leases (delivery_id, owner, expires_at)
		VALUES ($1, $2, now() + make_interval(secs => $3))
		ON CONFLICT (delivery_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at, taken_at = now()
		WHERE delivery_leases.expires_at < now() OR delivery_leases.owner = excluded.owner`,
		id, d.cfg.ID, d.cfg.Lease.Seconds())
	if err != nil {
		return false, fmt.Errorf("webhooks: claim %s: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// release hands the lease of delivery id back, even while stopping.
func (d *Dispatcher) release(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if _, err := d.store.Pool().Exec(ctx, `DELETE FROM delivery_leases WHERE delivery_id = $1 AND owner = $2`, id, d.cfg.ID); err != nil {
		d.log.Warn("releasing a webhook delivery lease", "delivery_id", id, "error", err)
	}
}

// releaseAll hands back every lease this dispatcher still holds (none,
// unless a release failed).
func (d *Dispatcher) releaseAll() {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if _, err := d.store.Pool().Exec(ctx, `DELETE FROM delivery_leases WHERE owner = $1`, d.cfg.ID); err != nil {
		d.log.Warn("releasing webhook delivery leases", "error", err)
	}
}
