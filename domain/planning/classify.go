// Package planning turns a task description into a costed plan: it
// classifies the description into a task type (deterministically, with the
// evidence it used), then builds the ordered steps, their credit estimates,
// the alternatives at other rigor levels and the warnings of spec A.
package planning

import (
	"math"
	"sort"
	"strings"
	"sync"

	"svc/domain/catalog"
)

// Classification is the classifier's answer with its evidence.
type Classification struct {
	TaskType   string   `json:"task_type"`
	Confidence float64  `json:"confidence"` // 0-1, calibrated on test/classification
	Runner     string   `json:"runner_up,omitempty"`
	Evidence   []string `json:"evidence,omitempty"` // the matched terms that weighed most
	// Posterior is the naive Bayes probability of the type; Similarity the
	// query's TF-IDF similarity to it. Confidence combines the two.
	Posterior, Similarity float64 `json:"-"`
	// Support counts the query's distinct words found in the type's text.
	Support float64 `json:"-"`
}

// Tuned on the development set test/classification/eval.jsonl and on
// vague.jsonl, never on heldout.jsonl (see docs/benchmarks.md):
const (
	// temperature spreads the softmax over the types' mean log-likelihoods.
	temperature = 0.05
	// alpha is the naive Bayes smoothing.
	alpha = 0.2
	// supportFloor is how many distinct words a query must share with its
	// best type for full confidence: one or two common words ("make it
	// better") are too little to plan on.
	supportFloor = 3
)

// Classifier scores descriptions against the catalogue's task types: a
// multinomial naive Bayes over each type's text (label, description,
// keywords counted twice, examples; words, word pairs, hyphenated compounds
// and a leading question word) ranks the types. Each query term's
// log-likelihood is weighted by its IDF over the catalogue's texts, so a
// rare, telling word ("jd", "ner", "newswire") outweighs a common one
// ("plan", "review"). A query sharing fewer than supportFloor words with the
// winner gets a discounted confidence.
type Classifier struct {
	types    []catalog.TaskType
	idf      map[string]float64
	profiles []vector   // one per type
	examples [][]vector // per type

	// postings index every profile and example by term, so a query's
	// similarities sum only over the terms it shares with them
	postings map[string][]posting

	// multinomial naive Bayes over the same profiles
	counts []map[string]float64
	totals []float64
	vocab  int

	// the embedding tier (embed.go)
	localOnce sync.Once
	local     *embeddingIndex
	provider  *providerIndex

	// the learned tier (learned.go), nil when off
	learned *Learned

	cat *catalog.Catalog // the task types' catalogue, for lookups by id
}

// posting is a term's weight in type's vector ex (-1: the type's profile).
type posting struct {
	typ, ex int
	w       float64
}

type vector map[string]float64

// NewClassifier indexes the catalogue's task types.
func NewClassifier(c *catalog.Catalog) *Classifier {
	cl := &Classifier{types: c.TaskTypes(), cat: c}
	docs := [][]string{}
	profileTerms := make([][]string, len(cl.types))
	exampleTerms := make([][][]string, len(cl.types))
	for i, t := range cl.types {
		p := features(t.Label + " " + t.Description + " " + t.Capability)
		for _, k := range t.Keywords {
			f := features(k)
			p = append(p, f...)
			p = append(p, f...) // keywords count double
		}
		for _, ex := range t.Examples {
			f := features(ex)
			exampleTerms[i] = append(exampleTerms[i], f)
			docs = append(docs, f)
			p = append(p, f...)
		}
		profileTerms[i] = p
		docs = append(docs, p)
	}
	df := map[string]int{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, term := range d {
			if !seen[term] {
				seen[term] = true
				df[term]++
			}
		}
	}
	cl.idf = make(map[string]float64, len(df))
	for term, n := range df {
		cl.idf[term] = math.Log(1 + float64(len(docs))/float64(n))
	}
	vocab := map[string]bool{}
	for i := range cl.types {
		m := map[string]float64{}
		var n float64
		for _, term := range profileTerms[i] {
			m[term]++
			n++
			vocab[term] = true
		}
		cl.counts = append(cl.counts, m)
		cl.totals = append(cl.totals, n)
	}
	cl.vocab = len(vocab)
	for i := range cl.types {
		cl.profiles = append(cl.profiles, cl.vectorize(profileTerms[i]))
		var exs []vector
		for _, f := range exampleTerms[i] {
			exs = append(exs, cl.vectorize(f))
		}
		cl.examples = append(cl.examples, exs)
	}
	cl.postings = map[string][]posting{}
	for i := range cl.types {
		for t, w := range cl.profiles[i] {
			cl.postings[t] = append(cl.postings[t], posting{typ: i, ex: -1, w: w})
		}
		for j, ex := range cl.examples[i] {
			for t, w := range ex {
				cl.postings[t] = append(cl.postings[t], posting{typ: i, ex: j, w: w})
			}
		}
	}
	if LearnedOn {
		cl.learned = DefaultLearned(c)
	}
	return cl
}

// similarities returns the cosine of q with each type's profile and with
// each of its examples (both unit vectors), from the postings of q's terms.
func (cl *Classifier) similarities(q vector) (profile []float64, examples [][]float64) {
	profile = make([]float64, len(cl.types))
	examples = make([][]float64, len(cl.types))
	for i := range cl.types {
		examples[i] = make([]float64, len(cl.examples[i]))
	}
	for t, qw := range q {
		for _, p := range cl.postings[t] {
			if p.ex < 0 {
				profile[p.typ] += qw * p.w
			} else {
				examples[p.typ][p.ex] += qw * p.w
			}
		}
	}
	return profile, examples
}

func (cl *Classifier) vectorize(terms []string) vector {
	v := vector{}
	for _, t := range terms {
		if idf, ok := cl.idf[t]; ok {
			v[t] += idf
		}
	}
	var norm float64
	for t, w := range v {
		w = 1 + math.Log(w) // sublinear term frequency
		if w <= 0 {
			w = 0.1
		}
		v[t] = w
		norm += w * w
	}
	norm = math.Sqrt(norm)
	for t := range v {
		v[t] /= norm
	}
	return v
}

// Classify returns the best type for description. A description sharing no
// term with any type has confidence 0.
func (cl *Classifier) Classify(description string) Classification {
	q := cl.vectorize(features(description))
	if len(q) == 0 {
		return Classification{}
	}
	scores := make([]float64, len(cl.types))
	similarity := make([]float64, len(cl.types))
	profSim, exSim := cl.similarities(q)
	terms := features(description)
	// the query's known terms with their IDF weights, the same for every type
	known := make([]string, 0, len(terms))
	weights := make([]float64, 0, len(terms))
	var wsum float64
	for _, t := range terms {
		if idf, ok := cl.idf[t]; ok {
			known = append(known, t)
			weights = append(weights, idf)
			wsum += idf
		}
	}
	for i := range cl.types {
		// naive Bayes: IDF-weighted mean log-likelihood of the known terms
		var ll float64
		denom := cl.totals[i] + alpha*float64(cl.vocab)
		for k, t := range known {
			ll += weights[k] * math.Log((cl.counts[i][t]+alpha)/denom)
		}
		if wsum > 0 {
			ll /= wsum
		}
		scores[i] = ll
		// similarity: how much of the query the type's text explains
		best := 0.0
		for _, c := range exSim[i] {
			best = math.Max(best, c)
		}
		similarity[i] = 0.6*best + 0.4*profSim[i]
	}
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	top := order[0]
	if similarity[top] == 0 {
		return Classification{}
	}
	var z float64
	for _, s := range scores {
		z += math.Exp((s - scores[top]) / temperature)
	}
	// the posterior, discounted when the query shares few words with the type
	conf := (1 / z) * math.Min(1, cl.support(top, terms)/supportFloor)
	c := Classification{TaskType: cl.types[top].ID, Confidence: round3(conf), Runner: cl.types[order[1]].ID,
		Posterior: 1 / z, Similarity: similarity[top], Support: cl.support(top, terms)}
	// evidence: the query's heaviest terms present in the winning profile
	type tw struct {
		t string
		w float64
	}
	var ev []tw
	for t, w := range q {
		if cl.profiles[top][t] > 0 {
			ev = append(ev, tw{t, w * cl.profiles[top][t]})
		}
	}
	sort.Slice(ev, func(a, b int) bool { return ev[a].w > ev[b].w || ev[a].w == ev[b].w && ev[a].t < ev[b].t })
	for i := 0; i < len(ev) && i < 5; i++ {
		t := ev[i].t
		if strings.HasPrefix(t, "?") { // the question feature: "?how_many" -> "how many?"
			t = strings.ReplaceAll(t[1:], "_", " ") + "?"
		}
		c.Evidence = append(c.Evidence, t)
	}
	return c
}

// support counts the distinct single-word query terms (words, compounds and
// the question feature, not word pairs) that type i's text contains.
func (cl *Classifier) support(i int, terms []string) float64 {
	seen := map[string]bool{}
	var s float64
	for _, t := range terms {
		if seen[t] || strings.Contains(t, "_") && !strings.HasPrefix(t, "?") || cl.counts[i][t] == 0 {
			continue
		}
		seen[t] = true
		s++
	}
	return s
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
