package planning

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"sync"

	"svc/domain/catalog"
)

// The learned tier (decisions 311–320): a multinomial logistic regression
// over the English-mapped words of a description (the features Classify
// uses: stems, word pairs, compounds, the question word), trained on the
// labelled development lines of test/classification and the catalogue's
// examples, with one extra class, "vague", for the lines too vague to plan.
// It is trained once per process from data embedded in the binary; the
// training is deterministic (fixed order, no randomness).
//
// The lines are copies of test/classification's development files (never
// blind/heldout2.jsonl, the held-out set); TestLearnedDataUpToDate in
// test/classification checks the copies. To refresh them:
//
//go:generate sh -c "cp ../../test/classification/blind/dev.jsonl ../../test/classification/blind/dev2.jsonl ../../test/classification/blind/dev3.jsonl ../../test/classification/blind/dev4.jsonl ../../test/classification/blind/dev5.jsonl ../../test/classification/blind/dev6.jsonl ../../test/classification/blind/dev7.jsonl data/learned/"
//go:generate cp ../../test/classification/blind/heldout.jsonl data/learned/heldout1.jsonl
//go:generate cp ../../test/classification/eval.jsonl data/learned/eval.jsonl
//go:generate cp ../../test/classification/heldout.jsonl data/learned/older-heldout.jsonl
//go:generate cp ../../test/classification/vague.jsonl data/learned/vague.jsonl

//go:embed data/learned/*.jsonl
var learnedFiles embed.FS

// LearnedSources maps each embedded training file to the file of
// test/classification it copies.
var LearnedSources = map[string]string{
	"dev.jsonl":           "blind/dev.jsonl",
	"dev2.jsonl":          "blind/dev2.jsonl",
	"dev3.jsonl":          "blind/dev3.jsonl",
	"dev4.jsonl":          "blind/dev4.jsonl",
	"dev5.jsonl":          "blind/dev5.jsonl",
	"dev6.jsonl":          "blind/dev6.jsonl",
	"dev7.jsonl":          "blind/dev7.jsonl",
	"heldout1.jsonl":      "blind/heldout.jsonl",
	"eval.jsonl":          "eval.jsonl",
	"older-heldout.jsonl": "heldout.jsonl",
	"vague.jsonl":         "vague.jsonl",
}

// LearnedExample is one labelled training line.
type LearnedExample struct {
	Source      string   // the test/classification file it comes from ("blind/dev3.jsonl")
	Kind        string   // single, multi or vague
	Description string   // as written
	Types       []string // its task types (one for single, several for multi)
}

// LearnedData returns the embedded training lines, in file and line order.
func LearnedData() []LearnedExample {
	names := make([]string, 0, len(LearnedSources))
	for n := range LearnedSources {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []LearnedExample
	for _, n := range names {
		b, err := learnedFiles.ReadFile(path.Join("data/learned", n))
		if err != nil {
			panic(fmt.Sprintf("planning: learned data %s: %v", n, err))
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for line := 1; sc.Scan(); line++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			var l struct {
				Kind        string   `json:"kind"`
				Description string   `json:"description"`
				TaskType    string   `json:"task_type"`
				TaskTypes   []string `json:"task_types"`
			}
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				panic(fmt.Sprintf("planning: learned data %s:%d: %v", n, line, err))
			}
			e := LearnedExample{Source: LearnedSources[n], Kind: l.Kind, Description: l.Description}
			switch {
			case l.Kind == "multi":
				e.Types = l.TaskTypes
			case l.Kind == "vague" || l.Kind == "" && l.TaskType == "":
				e.Kind = "vague"
			default:
				e.Kind = "single"
				e.Types = []string{l.TaskType}
			}
			out = append(out, e)
		}
	}
	return out
}

// VagueClass is the learned model's class of descriptions too vague to
// plan; MultiClass its class of descriptions asking for several things.
const (
	VagueClass = "vague"
	MultiClass = "multi"
)

// Learned is a trained model: per feature, one weight per class.
type Learned struct {
	classes []string
	index   map[string]int // class id -> index
	feats   map[string]int32
	w       []float32 // feature*len(classes) + class
	bias    []float32
	// Policy says when the model overrules the rules.
	Policy LearnedPolicy
}

// Training settings, fixed before any cross-validation (decision 313).
const (
	learnedEpochs = 12
	learnedRate   = 0.5  // AdaGrad step
	learnedL2     = 1e-4 // per step, on the weights touched
)

// TrainLearned fits the model on the catalogue's texts and examples and on
// the lines given: single lines teach their type, vague lines the vague
// class, multi lines the multi class.
func TrainLearned(cat *catalog.Catalog, lines []LearnedExample) *Learned {
	m := &Learned{index: map[string]int{}, feats: map[string]int32{}, Policy: DefaultLearnedPolicy}
	for _, t := range cat.TaskTypes() {
		m.index[t.ID] = len(m.classes)
		m.classes = append(m.classes, t.ID)
	}
	m.index[VagueClass] = len(m.classes)
	m.classes = append(m.classes, VagueClass)
	m.index[MultiClass] = len(m.classes)
	m.classes = append(m.classes, MultiClass)

	type doc struct {
		f []int32
		y int
	}
	var docs []doc
	add := func(text string, y int) {
		fs := m.featureIDs(text, true)
		if len(fs) > 0 {
			docs = append(docs, doc{fs, y})
		}
	}
	for _, t := range cat.TaskTypes() {
		y := m.index[t.ID]
		add(t.Label+". "+t.Description, y)
		for _, ex := range t.Examples {
			add(ex, y)
		}
	}
	for _, l := range lines {
		switch l.Kind {
		case "single":
			if y, ok := m.index[l.Types[0]]; ok {
				add(l.Description, y)
			}
		case "vague":
			add(l.Description, m.index[VagueClass])
		case "multi":
			add(l.Description, m.index[MultiClass])
		}
	}
	k := len(m.classes)
	m.w = make([]float32, len(m.feats)*k)
	m.bias = make([]float32, k)
	g2 := make([]float32, len(m.w)) // AdaGrad accumulators
	b2 := make([]float32, k)
	p := make([]float64, k)
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	seed := uint64(330)
	for epoch := 0; epoch < learnedEpochs; epoch++ {
		for i := len(order) - 1; i > 0; i-- { // a fixed-seed shuffle
			seed = seed*6364136223846793005 + 1442695040888963407
			j := int((seed >> 33) % uint64(i+1))
			order[i], order[j] = order[j], order[i]
		}
		for _, di := range order {
			d := docs[di]
			m.scores(d.f, p)
			softmax(p)
			scale := 1 / math.Sqrt(float64(len(d.f)))
			for c := 0; c < k; c++ {
				g := p[c]
				if c == d.y {
					g--
				}
				if g > -1e-4 && g < 1e-4 {
					g = 0
				} else {
					b2[c] += float32(g * g)
					m.bias[c] -= float32(learnedRate * g / math.Sqrt(float64(b2[c])+1e-8))
				}
				p[c] = g
			}
			for _, f := range d.f {
				row, acc := m.w[int(f)*k:int(f)*k+k], g2[int(f)*k:int(f)*k+k]
				for c, g := range p {
					if g == 0 {
						continue
					}
					gi := g*scale + learnedL2*float64(row[c])
					acc[c] += float32(gi * gi)
					row[c] -= float32(learnedRate * gi / math.Sqrt(float64(acc[c])+1e-8))
				}
			}
		}
	}
	return m
}

// featureIDs are the distinct feature ids of a description read into
// English; grow adds unseen features (training only).
func (m *Learned) featureIDs(description string, grow bool) []int32 {
	toks, _ := toEnglish(description)
	seen := map[string]bool{}
	var out []int32
	for _, f := range features(tokenText(toks)) {
		if seen[f] {
			continue
		}
		seen[f] = true
		id, ok := m.feats[f]
		if !ok {
			if !grow {
				continue
			}
			id = int32(len(m.feats))
			m.feats[f] = id
		}
		out = append(out, id)
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

// scores fills p with the class scores of features fs.
func (m *Learned) scores(fs []int32, p []float64) {
	k := len(m.classes)
	scale := 1.0
	if len(fs) > 0 {
		scale = 1 / math.Sqrt(float64(len(fs)))
	}
	for c := range p {
		p[c] = float64(m.bias[c])
	}
	for _, f := range fs {
		row := m.w[int(f)*k : int(f)*k+k]
		for c, w := range row {
			p[c] += float64(w) * scale
		}
	}
}

func softmax(p []float64) {
	top := math.Inf(-1)
	for _, v := range p {
		top = max(top, v)
	}
	var z float64
	for i, v := range p {
		p[i] = math.Exp(v - top)
		z += p[i]
	}
	for i := range p {
		p[i] /= z
	}
}

// LearnedGuess is the model's reading of a description: its best task
// type with its probability, and the probability that it is too vague.
type LearnedGuess struct {
	TaskType    string
	Probability float64
	Runner      string
	Vague       float64
	Multi       float64
}

// Predict reads description.
func (m *Learned) Predict(description string) LearnedGuess {
	toks, _ := toEnglish(description)
	return m.predictTokens(toks)
}

func (m *Learned) predictTokens(toks []token) LearnedGuess {
	terms := features(tokenText(toks))
	fs := make([]int32, 0, len(terms))
	for _, f := range terms {
		if id, ok := m.feats[f]; ok {
			fs = append(fs, id)
		}
	}
	slices.Sort(fs)
	fs = slices.Compact(fs) // each feature once
	p := make([]float64, len(m.classes))
	m.scores(fs, p)
	softmax(p)
	vi, mi := m.index[VagueClass], m.index[MultiClass]
	g := LearnedGuess{Vague: p[vi], Multi: p[mi]}
	// the best type among the task types, its probability renormalised
	// without the vague and multi classes
	best, second := -1, -1
	for c := range p {
		if c == vi || c == mi {
			continue
		}
		switch {
		case best < 0 || p[c] > p[best]:
			second, best = best, c
		case second < 0 || p[c] > p[second]:
			second = c
		}
	}
	g.TaskType, g.Runner = m.classes[best], m.classes[second]
	if rest := 1 - p[vi] - p[mi]; rest > 0 {
		g.Probability = p[best] / rest
	}
	return g
}

// The default models, one per catalogue, trained on every embedded line
// on first use.
var defaultLearned sync.Map // *catalog.Catalog -> *learnedOnce

type learnedOnce struct {
	once sync.Once
	m    *Learned
}

// DefaultLearned is the model of cat trained on every embedded line.
func DefaultLearned(cat *catalog.Catalog) *Learned {
	v, _ := defaultLearned.LoadOrStore(cat, &learnedOnce{})
	lo := v.(*learnedOnce)
	lo.once.Do(func() { lo.m = TrainLearned(cat, LearnedData()) })
	return lo.m
}

// LearnedOn is whether NewClassifier turns the learned tier on (decision
// 337): cross-validation across writers showed it reads new writers
// better than the rules alone.
const LearnedOn = true

// SetLearned makes the classifier consult m (nil: the learned tier is off).
func (cl *Classifier) SetLearned(m *Learned) { cl.learned = m }

// Learned is the model the classifier consults, or nil.
func (cl *Classifier) Learned() *Learned { return cl.learned }

// WithoutLearned turns the planner's learned tier off: the hand-built
// reading alone decides.
func WithoutLearned() Option { return func(p *Planner) { p.cl.SetLearned(nil) } }

// LearnedPolicy says when the learned model overrules the hand-built
// reading of a single-intent description (decision 314).
type LearnedPolicy struct {
	// Override is the probability at which the model's type replaces the
	// rules' when no strong deliverable phrase decided (above 1: never).
	Override float64
	// OverrideStrong is the same against a strong deliverable phrase.
	OverrideStrong float64
	// VagueAbove refuses a description the rules accepted when the vague
	// class is at least this likely (above 1: never); VagueBelow accepts
	// one the rules refused when it is under this (0: never).
	VagueAbove, VagueBelow float64
	// UnrefuseType is, besides VagueBelow, how likely the model's best
	// type must be for it to accept a description the rules refused (0:
	// VagueBelow alone decides).
	UnrefuseType float64
	// Clause is the probability at which the model makes an ask clause of
	// a description with several asks an intent of its own when the naive
	// Bayes is unsure of it (above 1: never).
	Clause float64
	// Split is the probability of the multi class at which a description
	// the rules read as one deliverable is split into the asks the model
	// types with at least SplitClause (above 1: never).
	Split, SplitClause float64
	// Unsplit undoes the rules' split of a description into several
	// intents when the multi class is under it, the model's best type is
	// at least UnsplitType likely and fewer than two asks name a strong
	// deliverable phrase: the description is then read as one (0: never).
	Unsplit, UnsplitType float64
}

// DefaultLearnedPolicy is the policy chosen by cross-validation across
// writers: decision 315's W, with the model overruling a strong phrase
// from 0.5 instead of 0.7 and undoing a rules' split it reads as one
// deliverable (multi under 0.05, best type at least 0.8) (decision 332;
// "X o0.3 s0.5 u0/0 m0.05/0.8" in test/classification/cv_test.go).
var DefaultLearnedPolicy = LearnedPolicy{Override: 0.3, OverrideStrong: 0.5, VagueAbove: 0.8, Clause: 0.5, Split: 0.3, SplitClause: 0.5,
	Unsplit: 0.05, UnsplitType: 0.8}

// learnedReading lets the learned model overrule the single-intent
// reading a, by the model's policy.
func (cl *Classifier) learnedReading(a *Analysis, g LearnedGuess, byPhrase bool) {
	pol := cl.learned.Policy
	switch {
	case a.Vague && g.Vague < pol.VagueBelow && g.Probability >= pol.UnrefuseType && !byPhrase:
		a.Vague = false
		a.Tier = TierLearned
	case !a.Vague && g.Vague >= pol.VagueAbove && !byPhrase:
		a.Vague = true
		a.Tier = TierLearned
	}
	limit := pol.Override
	if byPhrase {
		limit = pol.OverrideStrong
	}
	if g.TaskType != a.Classification.TaskType && g.Probability >= limit {
		c := a.Classification
		c.TaskType, c.Runner, c.Evidence = g.TaskType, c.TaskType, nil
		c.Confidence = round3(g.Probability)
		a.Classification, a.Tier = c, TierLearned
	}
}

// learnedUnsplit is whether the model undoes the rules' split of a
// description with asks, by the model's policy.
func (cl *Classifier) learnedUnsplit(asks []clause, g LearnedGuess) bool {
	pol := cl.learned.Policy
	if pol.Unsplit <= 0 || g.Multi >= pol.Unsplit || g.Probability < pol.UnsplitType {
		return false
	}
	named := 0
	for _, c := range asks {
		if askedDeliverable(c.toks) != "" {
			named++
		}
	}
	return named < 2
}

// learnedSplit splits a description the rules read as one deliverable
// when the model finds it asks for several: each ask clause the model
// types confidently is an intent; clauses of one type, or of one atomic
// family, are one intent (decision 317).
func (cl *Classifier) learnedSplit(description string, asks []clause, g LearnedGuess) []Intent {
	pol := cl.learned.Policy
	if len(asks) < 2 || g.Multi < pol.Split {
		return nil
	}
	var out []Intent
	for _, c := range asks {
		cg := cl.learned.predictTokens(c.toks)
		phrase := source(description, c.toks)
		tt, conf := "", cg.Probability
		if d := askedDeliverable(c.toks); d != "" {
			tt, conf = d, 0.9
		} else if cg.Probability >= pol.SplitClause && cg.Vague < 0.5 && contentWords(c.toks) >= 1 {
			tt = refineType(c.toks, cg.TaskType)
		}
		if tt == "" || len(out) > 0 && siblings(out[len(out)-1].TaskType, tt) {
			if len(out) > 0 {
				out[len(out)-1].SourcePhrase += "; " + phrase
			}
			continue
		}
		out = addIntent(out, Intent{TaskType: tt, Confidence: round3(conf), SourcePhrase: phrase})
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// refineType lets the verb of an ask and its criteria decide between
// neighbouring atomic types (neighbours.go), as the rules do.
func refineType(ts []token, tt string) string {
	return verbKind(leadVerb(ts), scoringKind(tt, ts), ts)
}
