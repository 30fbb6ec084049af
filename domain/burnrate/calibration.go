package burnrate

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"svc/eventstore/event"
)

// Calibration: an organization's tracked spend on one model, and the
// factor by which it corrects the model's estimates (actual cost over the
// price map's cost of the same tokens, averaged).

// Correction bounds.
const (
	// MinRatio and MaxRatio clamp one call's observed ratio: a cost
	// tracked against the wrong tokens should not make estimates absurd.
	MinRatio = 0.1
	MaxRatio = 10
	// Alpha is the weight of a new observation once there are enough;
	// before, observations are averaged (the weight is 1/n).
	Alpha = 0.2
	// MaxCost bounds one tracked call's cost, USD.
	MaxCost = 1_000_000
	// MaxName bounds a tracked provider's or model's name.
	MaxName = 100
)

// Cost sources of a tracked call.
const (
	CostReported = "reported"
	CostPriceMap = "price_map"
)

// Errors of tracking.
var (
	// ErrNoCost refuses a call with neither its cost nor its tokens.
	ErrNoCost = errors.New("actual_cost is required (or input_tokens and output_tokens, to price the call)")
	ErrCost   = fmt.Errorf("actual_cost must be a number from 0 to %d", MaxCost)
	ErrName   = fmt.Errorf("provider and model are required, at most %d characters", MaxName)
)

// CalibrationID is the id of orgID's calibration of provider's model.
func CalibrationID(orgID, provider, model string) string { return orgID + ":" + provider + "/" + model }

// CalibrationStream is the stream of calibration id.
func CalibrationStream(id string) string { return "burnrate-calibration-" + id }

// Calibration is the aggregate.
type Calibration struct {
	orgID   string
	factor  float64
	samples int
	version int64
}

// NewCalibration is a calibration with no events: factor 1.
func NewCalibration() *Calibration { return &Calibration{factor: 1, version: event.NewStream} }

// Clone copies c (the fold cache's).
func (c *Calibration) Clone() *Calibration { d := *c; return &d }

// Factor is the correction factor (1 before any observation).
func (c *Calibration) Factor() float64 { return c.factor }

// Samples is the number of observations behind Factor.
func (c *Calibration) Samples() int { return c.samples }

// OrgID is the owning organization ("" before any event).
func (c *Calibration) OrgID() string { return c.orgID }

// Version is the version of the last event folded.
func (c *Calibration) Version() int64 { return c.version }

// Apply folds one event.
func (c *Calibration) Apply(ev event.Event) error {
	d, err := registry.Decode(ev)
	if err != nil {
		return fmt.Errorf("burnrate: %w", err)
	}
	if t, ok := d.(SpendTracked); ok {
		c.orgID, c.factor, c.samples = t.OrgID, t.Factor, t.Samples
	}
	c.version = ev.Version
	return nil
}

// Spend is one call's spend as the caller tracks it.
type Spend struct {
	OrgID, TaskID string
	// Model is the price map's model (zero when Known is false); Provider
	// and Name are the names tracked.
	Model          Model
	Known          bool
	Provider, Name string
	ActualCost     *float64
	InputTokens    *int64
	OutputTokens   *int64
	CacheRead      int64
	AsOf           string
}

// Identify is the model a tracked call names: the price map's (Known),
// or the names as given, lower case, when the map does not list it.
func (p *Prices) Identify(provider, model string) (Spend, error) {
	pn, mn := normalize(provider), normalize(model)
	if pn == "" || mn == "" || len(pn) > MaxName || len(mn) > MaxName {
		return Spend{}, ErrName
	}
	m, err := p.Model(provider, model)
	if err != nil {
		return Spend{Provider: pn, Name: mn, AsOf: p.AsOf}, err
	}
	return Spend{Model: m, Known: true, Provider: m.Provider, Name: m.Name, AsOf: p.AsOf}, nil
}

// Track decides what spend s tells: the spend, and the factor corrected
// by its ratio to list price when it reports both a cost and tokens.
func (c *Calibration) Track(s Spend) (SpendTracked, error) {
	if s.ActualCost != nil && (*s.ActualCost < 0 || *s.ActualCost > MaxCost || math.IsNaN(*s.ActualCost)) {
		return SpendTracked{}, ErrCost
	}
	for _, n := range []*int64{s.InputTokens, s.OutputTokens, &s.CacheRead} {
		if n != nil && (*n < 0 || *n > MaxTokens) {
			return SpendTracked{}, ErrTokenCount
		}
	}
	if s.InputTokens != nil && s.CacheRead > *s.InputTokens {
		return SpendTracked{}, ErrCacheOverflow
	}
	hasTokens := s.InputTokens != nil && s.OutputTokens != nil
	out := SpendTracked{OrgID: s.OrgID, Provider: s.Provider, Model: s.Name, Known: s.Known, TaskID: strings.TrimSpace(s.TaskID),
		InputTokens: s.InputTokens, OutputTokens: s.OutputTokens, CacheReadTokens: s.CacheRead,
		Factor: c.factor, Samples: c.samples, PricesAsOf: s.AsOf}
	var list float64
	if s.Known && hasTokens {
		in := max(*s.InputTokens, s.CacheRead)
		list = RoundUSD(Line{Model: s.Model, InputTokens: in, CacheReadTokens: s.CacheRead, OutputTokens: *s.OutputTokens}.ListTokenCost())
		out.ListCostUSD = &list
	}
	switch {
	case s.ActualCost != nil:
		out.CostUSD, out.CostSource = RoundUSD(*s.ActualCost), CostReported
	case s.Known && hasTokens:
		out.CostUSD, out.CostSource = RoundUSD(list*c.factor), CostPriceMap
	case !hasTokens:
		return SpendTracked{}, ErrNoCost
	default:
		return SpendTracked{}, fmt.Errorf("%w %q of provider %s: give actual_cost to track it", ErrUnknownModel, s.Name, s.Provider)
	}
	if s.ActualCost != nil && list > 0 {
		r := min(max(*s.ActualCost/list, MinRatio), MaxRatio)
		r = math.Round(r*1e4) / 1e4
		out.ObservedRatio = &r
		out.Samples = c.samples + 1
		w := max(1/float64(out.Samples), Alpha)
		out.Factor = math.Round((c.factor+w*(r-c.factor))*1e4) / 1e4
	}
	return out, nil
}
