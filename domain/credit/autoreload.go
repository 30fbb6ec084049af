package credit

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"svc/eventstore/event"
)

// Auto-reload (spec B, Billing). Its configuration is ledger state
// (AutoReloadConfigured), so the ledger, which sees every change of the
// spendable balance under the org's lock or its expected version, decides
// when a reload is due: Follow, called on every append to the ledger
// (commands.Repositories), adds AutoReloadRequested to the append that
// takes the balance below the threshold. One request per crossing holds
// by construction: the request disarms the rule until the balance is at or
// above the threshold again (or an admin saves the configuration), and
// while a request is pending no other is made. A job (commands/reload)
// pays it off-session at the processor with the reload id as idempotency
// key; AutoReloadSucceeded comes with the grant of its credits,
// AutoReloadFailed with nothing.

// Auto-reload limits (spec B, Limits).
const (
	MinReloadThreshold = 100
	MaxReloadThreshold = 100_000
	MinReloadLimitUSD  = 5
	MaxReloadLimitUSD  = 10_000
	ReasonAutoReload   = "auto_reload"
)

// ReloadAmounts are the credits one reload may buy.
var ReloadAmounts = []int64{5_000, 25_000, 100_000, 250_000}

// Auto-reload errors; each names the body field it concerns.
var (
	ErrReloadConfirm      = errors.New("enabling auto-reload needs confirm: true")
	ErrReloadThreshold    = errors.New("threshold must be an integer from 100 to 100,000 credits")
	ErrReloadAmount       = errors.New("amount must be one of 5,000, 25,000, 100,000 or 250,000 credits")
	ErrReloadMonthlyLimit = errors.New("monthly_limit must be an integer from 5 to 10,000 USD, or null")
)

// Event types of auto-reload, on the ledger stream.
const (
	EventAutoReloadConfigured = "AutoReloadConfigured"
	EventAutoReloadRequested  = "AutoReloadRequested"
	EventAutoReloadStarted    = "AutoReloadStarted"
	EventAutoReloadSucceeded  = "AutoReloadSucceeded"
	EventAutoReloadFailed     = "AutoReloadFailed"
)

// AutoReloadConfigured is the data of AutoReloadConfigured: the whole
// configuration as an admin saved it. Disabling keeps the threshold, the
// amount and the limit (shown, used again when enabled with them).
type AutoReloadConfigured struct {
	OrgID           string `json:"org_id"`
	Enabled         bool   `json:"enabled"`
	Threshold       int64  `json:"threshold,omitempty"`
	Amount          int64  `json:"amount,omitempty"`
	MonthlyLimitUSD *int64 `json:"monthly_limit_usd,omitempty"`
}

// AutoReloadRequested is a reload the ledger decided: ReloadID is the
// processor's idempotency key, Month the UTC month it counts in.
type AutoReloadRequested struct {
	OrgID     string `json:"org_id"`
	ReloadID  string `json:"reload_id"`
	Amount    int64  `json:"amount"`
	PriceUSD  int64  `json:"price_usd"`
	Month     string `json:"month"`
	Balance   int64  `json:"balance"`
	Threshold int64  `json:"threshold"`
}

// AutoReloadStarted records that the processor took the payment and its
// outcome comes later (its event).
type AutoReloadStarted struct {
	OrgID     string `json:"org_id"`
	ReloadID  string `json:"reload_id"`
	PaymentID string `json:"payment_id"`
}

// AutoReloadSucceeded is a paid reload; a CreditsGranted of its amount
// (reason auto_reload) is appended with it.
type AutoReloadSucceeded struct {
	OrgID     string `json:"org_id"`
	ReloadID  string `json:"reload_id"`
	PaymentID string `json:"payment_id,omitempty"`
	Amount    int64  `json:"amount"`
}

// AutoReloadFailed is a reload that was not paid: Reason is a short code
// (no_billing_account, no_payment_method, card_declined, ...), Message the
// processor's words when it gave some.
type AutoReloadFailed struct {
	OrgID     string `json:"org_id"`
	ReloadID  string `json:"reload_id"`
	PaymentID string `json:"payment_id,omitempty"`
	Reason    string `json:"reason"`
	Message   string `json:"message,omitempty"`
}

// EventType implements event.Data.
func (AutoReloadConfigured) EventType() string { return EventAutoReloadConfigured }

// EventType implements event.Data.
func (AutoReloadRequested) EventType() string { return EventAutoReloadRequested }

// EventType implements event.Data.
func (AutoReloadStarted) EventType() string { return EventAutoReloadStarted }

// EventType implements event.Data.
func (AutoReloadSucceeded) EventType() string { return EventAutoReloadSucceeded }

// EventType implements event.Data.
func (AutoReloadFailed) EventType() string { return EventAutoReloadFailed }

// registerAutoReload registers the auto-reload events.
func registerAutoReload(r *event.Registry) {
	event.Register[AutoReloadConfigured](r)
	event.Register[AutoReloadRequested](r)
	event.Register[AutoReloadStarted](r)
	event.Register[AutoReloadSucceeded](r)
	event.Register[AutoReloadFailed](r)
}

// PendingReload is a requested reload whose outcome is not known yet.
type PendingReload struct {
	ReloadID  string `json:"reload_id"`
	Amount    int64  `json:"amount"`
	PriceUSD  int64  `json:"price_usd"`
	Month     string `json:"month"`
	PaymentID string `json:"payment_id,omitempty"` // set once started
}

// reloadState is the ledger's auto-reload state (kept in its snapshot).
type reloadState struct {
	Config AutoReloadConfigured `json:"config"`
	// Armed: a balance below the threshold requests a reload. Set by
	// enabling and by a balance at or above the threshold; a request
	// clears it.
	Armed   bool           `json:"armed,omitempty"`
	Pending *PendingReload `json:"pending,omitempty"`
	// Seq counts the requests ever made (the reload ids).
	Seq int64 `json:"seq,omitempty"`
	// SpentUSD is what the requests of Month cost, failed ones excluded.
	Month    string `json:"month,omitempty"`
	SpentUSD int64  `json:"spent_usd,omitempty"`
}

// ReloadPriceUSD is what amount credits cost.
func ReloadPriceUSD(amount int64) int64 { return amount / PerUSD }

// applyReload folds the auto-reload events.
func (l *Ledger) applyReload(d event.Data) {
	r := &l.reload
	switch d := d.(type) {
	case AutoReloadConfigured:
		d.OrgID = l.orgID
		r.Config, r.Armed = d, d.Enabled
	case AutoReloadRequested:
		if d.Month != r.Month {
			r.Month, r.SpentUSD = d.Month, 0
		}
		r.SpentUSD += d.PriceUSD
		r.Armed, r.Seq = false, r.Seq+1
		r.Pending = &PendingReload{ReloadID: d.ReloadID, Amount: d.Amount, PriceUSD: d.PriceUSD, Month: d.Month}
	case AutoReloadStarted:
		if r.Pending != nil && r.Pending.ReloadID == d.ReloadID {
			r.Pending.PaymentID = d.PaymentID
		}
	case AutoReloadSucceeded:
		if r.Pending != nil && r.Pending.ReloadID == d.ReloadID {
			r.Pending = nil
		}
	case AutoReloadFailed:
		if p := r.Pending; p != nil && p.ReloadID == d.ReloadID {
			if p.Month == r.Month {
				r.SpentUSD = max(r.SpentUSD-p.PriceUSD, 0)
			}
			r.Pending = nil
		}
	}
}

// rearm arms the rule when the balance is at or above the threshold.
func (l *Ledger) rearm() {
	if c := l.reload.Config; c.Enabled && l.Balance() >= c.Threshold {
		l.reload.Armed = true
	}
}

// AutoReload is the configuration as last saved (OrgID set; zero when
// never configured).
func (l *Ledger) AutoReload() AutoReloadConfigured { return l.reload.Config }

// PendingReload is the reload whose outcome is awaited (nil for none).
func (l *Ledger) PendingReload() *PendingReload {
	if l.reload.Pending == nil {
		return nil
	}
	p := *l.reload.Pending
	return &p
}

// ReloadSpentUSD is what month's reloads cost, succeeded and pending.
func (l *Ledger) ReloadSpentUSD(month string) int64 {
	if l.reload.Month == month {
		return l.reload.SpentUSD
	}
	return 0
}

// ConfigureAutoReload decides an admin's configuration: enabling needs
// confirm, a threshold of 100 to 100,000 credits, an amount of
// ReloadAmounts and, optionally, a monthly limit of 5 to 10,000 USD.
// Disabling keeps what was configured. Enabling again arms the rule, even
// with the same values: saving is how an admin asks for a new attempt
// after a failure. Disabling a disabled configuration appends nothing
// (ok false).
func (l *Ledger) ConfigureAutoReload(enabled, confirm bool, threshold, amount int64, limitUSD *int64) (AutoReloadConfigured, bool, error) {
	c := l.reload.Config
	if !enabled {
		if !c.Enabled {
			return AutoReloadConfigured{}, false, nil
		}
		c.OrgID, c.Enabled = l.orgID, false
		return c, true, nil
	}
	switch {
	case !confirm:
		return AutoReloadConfigured{}, false, ErrReloadConfirm
	case threshold < MinReloadThreshold || threshold > MaxReloadThreshold:
		return AutoReloadConfigured{}, false, ErrReloadThreshold
	case !slices.Contains(ReloadAmounts, amount):
		return AutoReloadConfigured{}, false, ErrReloadAmount
	case limitUSD != nil && (*limitUSD < MinReloadLimitUSD || *limitUSD > MaxReloadLimitUSD):
		return AutoReloadConfigured{}, false, ErrReloadMonthlyLimit
	}
	return AutoReloadConfigured{OrgID: l.orgID, Enabled: true, Threshold: threshold, Amount: amount, MonthlyLimitUSD: limitUSD}, true, nil
}

// Follow decides what follows data, the events about to be appended to
// the ledger, at now: an AutoReloadRequested when, with data folded, auto-
// reload is enabled and armed, no reload is pending, the spendable
// balance is below the threshold, and the reload's price fits what is
// left of the monthly limit in now's UTC month. A reload the limit does
// not allow is not requested and the rule stays armed: the next change of
// the balance in a later month requests it. nil otherwise.
func (l *Ledger) Follow(data []event.Data, now time.Time) []event.Data {
	configures := slices.ContainsFunc(data, func(d event.Data) bool { _, ok := d.(AutoReloadConfigured); return ok })
	if len(data) == 0 || (!l.reload.Config.Enabled && !configures) {
		return nil
	}
	w := l.Clone()
	for _, d := range data {
		w.apply(d)
	}
	r := w.reload
	c := r.Config
	if !c.Enabled || !r.Armed || r.Pending != nil || w.Balance() >= c.Threshold {
		return nil
	}
	month, price := MonthOf(now), ReloadPriceUSD(c.Amount)
	if c.MonthlyLimitUSD != nil && w.ReloadSpentUSD(month)+price > *c.MonthlyLimitUSD {
		return nil
	}
	return []event.Data{AutoReloadRequested{OrgID: l.orgID, ReloadID: ReloadID(l.orgID, r.Seq+1),
		Amount: c.Amount, PriceUSD: price, Month: month, Balance: w.Balance(), Threshold: c.Threshold}}
}

// reloadPrefix starts every reload id.
const reloadPrefix = "autoreload-"

// ReloadID is the id of organization orgID's seq-th reload: the
// processor's idempotency key, unique per organization and reload.
func ReloadID(orgID string, seq int64) string {
	return fmt.Sprintf("%s%s-%d", reloadPrefix, orgID, seq)
}

// ReloadOrg is the organization a reload id names (ok false for an id
// ReloadID did not make).
func ReloadOrg(id string) (orgID string, ok bool) {
	rest, found := strings.CutPrefix(id, reloadPrefix)
	i := strings.LastIndexByte(rest, '-')
	if !found || i <= 0 {
		return "", false
	}
	if _, err := strconv.ParseInt(rest[i+1:], 10, 64); err != nil {
		return "", false
	}
	return rest[:i], true
}

// ReloadStarted decides that the processor took reload id's payment (ok
// false when it is not the pending one, or started already).
func (l *Ledger) ReloadStarted(id, paymentID string) (AutoReloadStarted, bool) {
	p := l.reload.Pending
	if p == nil || p.ReloadID != id || p.PaymentID != "" {
		return AutoReloadStarted{}, false
	}
	return AutoReloadStarted{OrgID: l.orgID, ReloadID: id, PaymentID: paymentID}, true
}

// ReloadSucceeded decides the success of reload id: AutoReloadSucceeded
// and the grant of its credits; ok false when it is not pending (its
// outcome was recorded already).
func (l *Ledger) ReloadSucceeded(id, paymentID string) ([]event.Data, bool) {
	p := l.reload.Pending
	if p == nil || p.ReloadID != id {
		return nil, false
	}
	return []event.Data{
		AutoReloadSucceeded{OrgID: l.orgID, ReloadID: id, PaymentID: paymentID, Amount: p.Amount},
		Granted{OrgID: l.orgID, Amount: p.Amount, Reason: ReasonAutoReload, Note: id},
	}, true
}

// ReloadFailed decides the failure of reload id (ok false when it is not
// pending). Nothing is disabled: the rule stays disarmed until the
// balance is at or above the threshold again or an admin saves the
// configuration, so a declined card is not charged again at every step.
func (l *Ledger) ReloadFailed(id, paymentID, reason, message string) (AutoReloadFailed, bool) {
	p := l.reload.Pending
	if p == nil || p.ReloadID != id {
		return AutoReloadFailed{}, false
	}
	return AutoReloadFailed{OrgID: l.orgID, ReloadID: id, PaymentID: paymentID, Reason: reason, Message: message}, true
}
