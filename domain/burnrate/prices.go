package burnrate

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The price map: the providers' list prices, shipped as data
// (data/prices.json) with the date they were read, which every answer
// shows.

//go:embed data/prices.json
var pricesJSON []byte

// Domain errors of the price map.
var (
	// ErrUnknownProvider refuses a provider the price map does not list.
	ErrUnknownProvider = errors.New("unknown provider")
	// ErrUnknownModel refuses a model the provider's map does not list:
	// never priced at $0.
	ErrUnknownModel = errors.New("unknown model")
	// ErrNoModels refuses a model step for a search-only provider.
	ErrNoModels = errors.New("provider prices web search only")
	// ErrNoSearch refuses search calls for a provider without a web
	// search price.
	ErrNoSearch = errors.New("provider has no web search price")
)

// Model is one model's prices, USD per million tokens.
type Model struct {
	// Provider and Name are the canonical names.
	Provider string
	Name     string
	Family   string
	Input    float64
	Output   float64
	// CacheRead is the price of cached input tokens; 0 when the model has
	// no prompt caching (cached tokens are then priced as input).
	CacheRead float64
	// CacheWrite is the price of writing the cache (Anthropic's 1.25x
	// input); 0: writing costs the input price.
	CacheWrite float64
	// Legacy models are priced but never suggested as a substitution.
	Legacy bool
}

// HasCache reports whether the model prices cached input lower.
func (m Model) HasCache() bool { return m.CacheRead > 0 && m.CacheRead < m.Input }

// blended is a price to order models by: three input tokens to one output.
func (m Model) blended() float64 { return (3*m.Input + m.Output) / 4 }

// Provider is one provider's prices.
type Provider struct {
	Name string
	// DefaultModel prices a step that names none ("" for a search-only
	// provider).
	DefaultModel string
	// WebSearch is the price of one web search call (0: none).
	WebSearch float64
	// BatchDiscount is the share of the token price a batch run saves (0:
	// no batch API).
	BatchDiscount float64
	models        map[string]Model
	aliases       map[string]string
}

// Models lists the provider's model names, sorted.
func (p Provider) Models() []string {
	out := make([]string, 0, len(p.models))
	for n := range p.models {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Prices is the price map.
type Prices struct {
	// AsOf is the date the prices were read (YYYY-MM-DD).
	AsOf      string
	providers map[string]Provider
	aliases   map[string]string
}

type pricesFile struct {
	AsOf            string            `json:"as_of"`
	ProviderAliases map[string]string `json:"provider_aliases"`
	Providers       map[string]struct {
		DefaultModel  string  `json:"default_model"`
		WebSearch     float64 `json:"web_search_per_call"`
		BatchDiscount float64 `json:"batch_discount"`
		Models        map[string]struct {
			Family     string   `json:"family"`
			Input      float64  `json:"input"`
			Output     float64  `json:"output"`
			CacheRead  float64  `json:"cache_read"`
			CacheWrite float64  `json:"cache_write"`
			Legacy     bool     `json:"legacy"`
			Aliases    []string `json:"aliases"`
		} `json:"models"`
	} `json:"providers"`
}

// ParsePrices reads a price map in data/prices.json's format.
func ParsePrices(raw []byte) (*Prices, error) {
	var f pricesFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("price map: %w", err)
	}
	if f.AsOf == "" || len(f.Providers) == 0 {
		return nil, errors.New("price map: no as_of date or no providers")
	}
	p := &Prices{AsOf: f.AsOf, providers: map[string]Provider{}, aliases: map[string]string{}}
	for name, pf := range f.Providers {
		prov := Provider{Name: name, DefaultModel: pf.DefaultModel, WebSearch: pf.WebSearch, BatchDiscount: pf.BatchDiscount,
			models: map[string]Model{}, aliases: map[string]string{}}
		for mn, mf := range pf.Models {
			if mf.Input < 0 || mf.Output < 0 || mf.CacheRead < 0 || (mf.Input == 0 && mf.Output == 0) {
				return nil, fmt.Errorf("price map: %s/%s has no price", name, mn)
			}
			prov.models[mn] = Model{Provider: name, Name: mn, Family: mf.Family, Input: mf.Input, Output: mf.Output,
				CacheRead: mf.CacheRead, CacheWrite: mf.CacheWrite, Legacy: mf.Legacy}
			for _, a := range mf.Aliases {
				prov.aliases[normalize(a)] = mn
			}
		}
		if prov.DefaultModel != "" {
			if _, ok := prov.models[prov.DefaultModel]; !ok {
				return nil, fmt.Errorf("price map: %s's default model %s is not listed", name, prov.DefaultModel)
			}
		}
		p.providers[name] = prov
	}
	for a, to := range f.ProviderAliases {
		if _, ok := p.providers[to]; !ok {
			return nil, fmt.Errorf("price map: provider alias %s names unknown %s", a, to)
		}
		p.aliases[normalize(a)] = to
	}
	return p, nil
}

var current = func() *Prices {
	p, err := ParsePrices(pricesJSON)
	if err != nil {
		panic(err)
	}
	return p
}()

// Current is the price map shipped with the service.
func Current() *Prices { return current }

// Providers lists the providers' names, sorted.
func (p *Prices) Providers() []string {
	out := make([]string, 0, len(p.providers))
	for n := range p.providers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// normalize lower-cases and trims a name.
func normalize(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// Provider is provider name (or an alias of it).
func (p *Prices) Provider(name string) (Provider, error) {
	n := normalize(name)
	if to, ok := p.aliases[n]; ok {
		n = to
	}
	prov, ok := p.providers[n]
	if !ok {
		return Provider{}, &LookupError{Err: ErrUnknownProvider, Provider: name, Close: closeNames(n, p.Providers())}
	}
	return prov, nil
}

// dateSuffix matches a dated snapshot's suffix: -2024-08-06, -20250929,
// @20250929.
var dateSuffix = regexp.MustCompile(`(-\d{4}-\d{2}-\d{2}|-\d{8}|@\d{8}|@latest|-latest|-preview)$`)

// Model is provider's model name: its canonical name, an alias, a dated
// snapshot of one, or one prefixed with its provider ("openai/gpt-4o",
// "models/gemini-2.5-pro").
func (p *Prices) Model(provider, name string) (Model, error) {
	prov, err := p.Provider(provider)
	if err != nil {
		return Model{}, err
	}
	return p.model(prov, name)
}

func (p *Prices) model(prov Provider, name string) (Model, error) {
	if len(prov.models) == 0 {
		return Model{}, &LookupError{Err: ErrNoModels, Provider: prov.Name, Model: name}
	}
	if m, ok := find(prov, name); ok {
		return m, nil
	}
	le := &LookupError{Err: ErrUnknownModel, Provider: prov.Name, Model: name, Close: closeNames(normalize(name), prov.Models())}
	for _, other := range p.Providers() {
		if _, ok := find(p.providers[other], name); ok && other != prov.Name {
			le.OtherProvider = other
		}
	}
	return Model{}, le
}

// find is prov's model name, an alias or a dated snapshot of one, or one
// prefixed with a provider.
func find(prov Provider, name string) (Model, bool) {
	n := normalize(name)
	tries := []string{n}
	if i := strings.LastIndex(n, "/"); i >= 0 {
		tries = append(tries, n[i+1:])
	}
	for _, t := range slices.Clone(tries) {
		if s := dateSuffix.ReplaceAllString(t, ""); s != t {
			tries = append(tries, s)
		}
	}
	for _, t := range tries {
		if m, ok := prov.models[t]; ok {
			return m, true
		}
		if to, ok := prov.aliases[t]; ok {
			return prov.models[to], true
		}
	}
	return Model{}, false
}

// Substitute is the next cheaper current model of m's family and
// provider: the dearest of the cheaper ones; false when there is none.
func (p *Prices) Substitute(m Model) (Model, bool) {
	prov, ok := p.providers[m.Provider]
	if !ok || m.Family == "" {
		return Model{}, false
	}
	var best Model
	found := false
	for _, c := range prov.models {
		if c.Family != m.Family || c.Legacy || c.Name == m.Name || c.blended() >= m.blended() {
			continue
		}
		if !found || c.blended() > best.blended() || (c.blended() == best.blended() && c.Name < best.Name) {
			best, found = c, true
		}
	}
	return best, found
}

// LookupError is an unknown provider or model, with the names closest to
// it.
type LookupError struct {
	Err      error
	Provider string
	Model    string
	// Close are the known names closest to the one asked for.
	Close []string
	// OtherProvider lists the model under another provider ("" if none).
	OtherProvider string
}

func (e *LookupError) Error() string {
	switch {
	case errors.Is(e.Err, ErrUnknownProvider):
		return fmt.Sprintf("%v %q", e.Err, e.Provider)
	case errors.Is(e.Err, ErrNoModels):
		return fmt.Sprintf("%s: %v, it has no model %q", e.Provider, e.Err, e.Model)
	}
	return fmt.Sprintf("%v %q of provider %s", e.Err, e.Model, e.Provider)
}

// Unwrap returns the sentinel error.
func (e *LookupError) Unwrap() error { return e.Err }

// closeNames are the names of known closest to name: those within an edit
// distance of a third of the longer name, or sharing a prefix, closest
// first, at most five.
func closeNames(name string, known []string) []string {
	type cand struct {
		n string
		d int
	}
	var cs []cand
	for _, k := range known {
		d := levenshtein(name, k)
		limit := max(len(name), len(k)) / 3
		if d <= max(limit, 2) || (len(name) >= 3 && (strings.HasPrefix(k, name) || strings.HasPrefix(name, k))) {
			cs = append(cs, cand{k, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].n < cs[j].n
	})
	out := []string{}
	for i := 0; i < len(cs) && i < 5; i++ {
		out = append(out, cs[i].n)
	}
	return out
}

// levenshtein is the edit distance of a and b (bytes).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
