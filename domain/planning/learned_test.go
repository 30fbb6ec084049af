package planning

import (
	"testing"

	"svc/domain/catalog"
)

// TestLearnedDeterministic trains twice and expects the same weights: the
// order is fixed and nothing is random.
func TestLearnedDeterministic(t *testing.T) {
	cat := catalog.Default()
	a, b := TrainLearned(cat, LearnedData()), TrainLearned(cat, LearnedData())
	if len(a.w) != len(b.w) || len(a.feats) != len(b.feats) {
		t.Fatalf("sizes differ: %d/%d weights, %d/%d features", len(a.w), len(b.w), len(a.feats), len(b.feats))
	}
	for i := range a.w {
		if a.w[i] != b.w[i] {
			t.Fatalf("weight %d differs: %v, %v", i, a.w[i], b.w[i])
		}
	}
}

// TestLearnedData checks the embedded lines: every label is a catalogue
// type, and every kind is known.
func TestLearnedData(t *testing.T) {
	cat := catalog.Default()
	n := map[string]int{}
	for _, l := range LearnedData() {
		n[l.Kind]++
		for _, tt := range l.Types {
			if _, ok := cat.TaskType(tt); !ok {
				t.Errorf("%s: unknown type %q in %q", l.Source, tt, l.Description)
			}
		}
		if l.Kind != "vague" && len(l.Types) == 0 {
			t.Errorf("%s: %s line without a type: %q", l.Source, l.Kind, l.Description)
		}
	}
	if n["single"] < 2000 || n["vague"] < 300 || n["multi"] < 250 {
		t.Errorf("embedded lines: %v", n)
	}
}

// TestLearnedTier reads a few descriptions through the default model.
func TestLearnedTier(t *testing.T) {
	cl := NewClassifier(catalog.Default())
	if cl.Learned() == nil {
		t.Fatal("the learned tier is off")
	}
	for d, want := range map[string]string{
		"help me with stuff":                        "(vague)",
		"Write a press release about our Series B.": "press_release",
		"Score each of these 40 leads 1-100 against our ICP: size, industry, budget.": "score",
	} {
		a := cl.Analyze(d)
		got := a.Classification.TaskType
		if a.Vague {
			got = "(vague)"
		}
		if got != want {
			t.Errorf("%q: %s, want %s", d, got, want)
		}
	}
	off := NewClassifier(catalog.Default())
	off.SetLearned(nil)
	if a := off.Analyze("help me with stuff"); a.Tier == TierLearned {
		t.Error("a classifier without the learned tier used it")
	}
}

// TestLearnedPolicyKnobs checks the un-refusing and un-splitting knobs of
// LearnedPolicy (decision 332) on made-up readings of the model.
func TestLearnedPolicyKnobs(t *testing.T) {
	cl := NewClassifier(catalog.Default())
	m := *cl.Learned()
	cl.SetLearned(&m)
	refused := func(g LearnedGuess, byPhrase bool) bool {
		a := Analysis{Vague: true, Classification: Classification{TaskType: "summary"}}
		cl.learnedReading(&a, g, byPhrase)
		return a.Vague
	}
	m.Policy = LearnedPolicy{Override: 2, OverrideStrong: 2, VagueAbove: 2, VagueBelow: 0.2, UnrefuseType: 0.6, Split: 2, SplitClause: 2, Clause: 2}
	sure := LearnedGuess{TaskType: "summary", Probability: 0.8, Vague: 0.1}
	for _, c := range []struct {
		g        LearnedGuess
		byPhrase bool
		want     bool
	}{
		{sure, false, false},
		{sure, true, true},
		{LearnedGuess{TaskType: "summary", Probability: 0.5, Vague: 0.1}, false, true}, // type unsure
		{LearnedGuess{TaskType: "summary", Probability: 0.8, Vague: 0.3}, false, true}, // vague likely
	} {
		if got := refused(c.g, c.byPhrase); got != c.want {
			t.Errorf("%+v by phrase %v: refused %v, want %v", c.g, c.byPhrase, got, c.want)
		}
	}
	m.Policy.VagueBelow = 0
	if !refused(sure, false) {
		t.Error("un-refused with VagueBelow 0")
	}

	asks := func(texts ...string) []clause {
		var out []clause
		for _, s := range texts {
			toks, _ := toEnglish(s)
			out = append(out, clause{toks: toks})
		}
		return out
	}
	one := LearnedGuess{TaskType: "summary", Probability: 0.9, Multi: 0.01}
	m.Policy.Unsplit, m.Policy.UnsplitType = 0.1, 0.7
	if !cl.learnedUnsplit(asks("summarize the thread", "list the open points"), one) {
		t.Error("a split the model reads as one deliverable was kept")
	}
	if cl.learnedUnsplit(asks("write a press release", "draft a blog post"), one) {
		t.Error("a split of two strong deliverable phrases was undone")
	}
	if cl.learnedUnsplit(asks("summarize the thread", "list the open points"), LearnedGuess{Probability: 0.9, Multi: 0.2}) {
		t.Error("undone although multi was likely")
	}
	m.Policy.Unsplit = 0
	if cl.learnedUnsplit(asks("summarize the thread", "list the open points"), one) {
		t.Error("undone with Unsplit 0")
	}
}

// BenchmarkTrainLearned trains the default model (once per process and
// catalogue in production).
func BenchmarkTrainLearned(b *testing.B) {
	cat := catalog.Default()
	lines := LearnedData()
	for b.Loop() {
		TrainLearned(cat, lines)
	}
}

// BenchmarkAnalyzeLearnedOff is BenchmarkAnalyze without the learned tier,
// to compare in the same run.
func BenchmarkAnalyzeLearnedOff(b *testing.B) {
	cl := NewClassifier(catalog.Default())
	cl.SetLearned(nil)
	const d = "We're a 40-person fintech in Lisbon; churn went from 3% to 5% last quarter and the board meets on the 12th. " +
		"Write a short internal announcement about the new retention team, and separately put together a risk assessment of moving our payments provider."
	for b.Loop() {
		cl.Analyze(d)
	}
}

// BenchmarkAnalyzeGermanLearnedOff is BenchmarkAnalyzeGerman without the
// learned tier.
func BenchmarkAnalyzeGermanLearnedOff(b *testing.B) {
	cl := NewClassifier(catalog.Default())
	cl.SetLearned(nil)
	for b.Loop() {
		cl.Analyze("Bitte erstelle eine Wettbewerbsanalyse unserer drei wichtigsten Konkurrenten im Kundenabwanderungsmarkt.")
	}
}

// BenchmarkAnalyzeNote reads a note with no deliverable phrase, where the
// learned tier is consulted for the type and for vagueness.
func BenchmarkAnalyzeNote(b *testing.B) {
	cl := NewClassifier(catalog.Default())
	for b.Loop() {
		cl.Analyze("warehouse throughput by shift last quarter, what stands out and what should we change first")
	}
}

// BenchmarkAnalyzeNoteLearnedOff is BenchmarkAnalyzeNote without the tier.
func BenchmarkAnalyzeNoteLearnedOff(b *testing.B) {
	cl := NewClassifier(catalog.Default())
	cl.SetLearned(nil)
	for b.Loop() {
		cl.Analyze("warehouse throughput by shift last quarter, what stands out and what should we change first")
	}
}

// BenchmarkLearnedPredict is the learned tier's reading of a description
// already carried into English.
func BenchmarkLearnedPredict(b *testing.B) {
	m := DefaultLearned(catalog.Default())
	toks, _ := toEnglish("We're a 40-person fintech in Lisbon; churn went from 3% to 5% last quarter and the board meets on the 12th. " +
		"Write a short internal announcement about the new retention team, and separately put together a risk assessment of moving our payments provider.")
	for b.Loop() {
		m.predictTokens(toks)
	}
}
