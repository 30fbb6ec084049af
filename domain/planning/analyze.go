package planning

import (
	"context"
	"fmt"
	"strings"
)

// Tiers of classification, recorded on the WorkflowPlanned event.
const (
	TierGiven     = "given"     // the caller named the task type
	TierLexical   = "lexical"   // deliverable phrases and the naive Bayes over the catalogue
	TierEmbedding = "embedding" // nearest catalogue examples by embedding
	TierLLM       = "llm"       // the LLM fallback, below the confidence threshold
)

// Analysis is what the classifier makes of a description: its language,
// whether it is too vague to plan, and the deliverables it asks for.
type Analysis struct {
	Language string // "en", "de", "fr" or "es"
	// Vague is a request with no object or deliverable to plan.
	Vague bool
	// Classification is the type of the description as one deliverable.
	Classification Classification
	// Intents holds two or more independent deliverables, or nothing.
	Intents []Intent
	// Reason says why a description was split.
	Reason string
	// Tier names the tier that decided.
	Tier string
	// Context is the text of the description's context clauses
	// (background, figures, constraints), given to every intent.
	Context string
}

// Analyze reads a description as a request: it carries it into English,
// cuts it into clauses and tells asks from context, finds the deliverables
// asked for, and classifies. Context never becomes an intent of its own;
// the deliverable decides the type and the topic only breaks ties.
func (cl *Classifier) Analyze(description string) Analysis {
	return cl.AnalyzeContext(context.Background(), description)
}

// AnalyzeContext is Analyze with a context for a provider's embeddings.
func (cl *Classifier) AnalyzeContext(ctx context.Context, description string) Analysis {
	toks, lang := toEnglish(description)
	a := Analysis{Language: lang, Tier: TierLexical}
	clauses := segment(toks)
	var asks []clause
	var context []string
	for _, c := range clauses {
		if c.ask {
			asks = append(asks, c)
		} else {
			context = append(context, source(description, c.toks))
		}
	}
	if len(asks) == 0 {
		asks = []clause{{toks: toks}}
	}
	if intents := cl.intentsOf(description, asks); len(intents) > 1 {
		a.Intents = intents
		a.Classification = cl.Classify(tokenText(toks))
		a.Reason = splitReason(intents)
		a.Context = strings.Join(context, " ")
		return a
	}
	var lexical float64
	a.Classification, a.Tier, lexical = cl.single(ctx, toks, asks)
	a.Vague = vague(asks, toks, lexical)
	return a
}

// single classifies the description as one deliverable: the first strong
// deliverable phrase of its asks when there is one, else the naive Bayes
// over its asks, or over the whole text when the asks alone say too little.
// The lexical confidence is returned too: vagueness is judged on it.
func (cl *Classifier) single(ctx context.Context, all []token, asks []clause) (Classification, string, float64) {
	var askToks []token
	for _, c := range asks {
		askToks = append(askToks, c.toks...)
	}
	whole := cl.Classify(tokenText(all))
	ask := cl.Classify(tokenText(askToks))
	best := ask
	if whole.Confidence > ask.Confidence+0.15 {
		best = whole
	}
	var weak string
	for _, c := range asks {
		for _, d := range deliverables(c.toks) {
			if d.strong {
				return withType(cl, best, d.taskType, tokenText(c.toks)), TierLexical, 1
			}
			if weak == "" {
				weak = d.taskType
			}
		}
	}
	if weak != "" && best.TaskType != weak && best.Confidence < 0.6 {
		return withType(cl, best, weak, tokenText(askToks)), TierLexical, best.Confidence
	}
	if best.Confidence >= embedBelow || best.TaskType == "" {
		return best, TierLexical, best.Confidence
	}
	typ, _, lead := cl.byEmbedding(ctx, tokenText(all))
	if typ < 0 {
		return best, TierLexical, best.Confidence
	}
	tt := cl.types[typ].ID
	if tt == best.TaskType {
		return best, TierLexical, best.Confidence
	}
	if lead >= embedMargin {
		c := cl.scoreAs(tokenText(all), tt)
		c.TaskType, c.Runner = tt, best.TaskType
		c.Confidence = round3(max(best.Confidence, min(0.9, 0.5+lead*5)))
		return c, TierEmbedding, best.Confidence
	}
	return best, TierLexical, best.Confidence
}

// withType is c turned to task type tt, decided by a deliverable phrase:
// its confidence is at least 0.9.
func withType(cl *Classifier, c Classification, tt, text string) Classification {
	if c.TaskType == tt {
		c.Confidence = max(c.Confidence, 0.9)
		return c
	}
	runner := c.TaskType
	c = cl.scoreAs(text, tt)
	c.TaskType, c.Runner = tt, runner
	c.Confidence = max(c.Confidence, 0.9)
	return c
}

// scoreAs classifies text and keeps its evidence for type tt when tt is
// the winner; otherwise only the support.
func (cl *Classifier) scoreAs(text, tt string) Classification {
	c := cl.Classify(text)
	if c.TaskType != tt {
		c.Evidence = nil
	}
	return c
}

// intentsOf turns the asks into intents: an ask with a strong deliverable
// phrase of its own, or one that opens with a request verb and is
// confidently of one type, is an intent; an ask that names nothing ("and
// keep it short") belongs to the intent before it; intents of one type
// merge.
func (cl *Classifier) intentsOf(description string, asks []clause) []Intent {
	if len(asks) < 2 {
		return nil
	}
	var out []Intent
	for _, c := range asks {
		tt, conf := "", 0.0
		if d := firstStrong(c.toks); d != "" {
			tt, conf = d, 0.9
			cc := cl.Classify(tokenText(c.toks))
			if cc.TaskType == tt {
				conf = max(conf, cc.Confidence)
			}
		} else if (c.verb || c.question || c.opened) && contentWords(c.toks) >= 2 {
			cc := cl.Classify(tokenText(c.toks))
			if cc.Confidence >= 0.7 {
				tt, conf = cc.TaskType, cc.Confidence
			}
		}
		phrase := source(description, c.toks)
		if tt == "" {
			if len(out) > 0 {
				out[len(out)-1].SourcePhrase += "; " + phrase
			}
			continue
		}
		merged := false
		for i := range out {
			if out[i].TaskType == tt {
				out[i].SourcePhrase += "; " + phrase
				merged = true
			}
		}
		if !merged {
			out = append(out, Intent{TaskType: tt, Confidence: round3(conf), SourcePhrase: phrase})
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// firstStrong is the type of the first strong deliverable phrase of ts.
func firstStrong(ts []token) string {
	for _, d := range deliverables(ts) {
		if d.strong {
			return d.taskType
		}
	}
	return ""
}

// source is the text of description that ts came from.
func source(description string, ts []token) string {
	if len(ts) == 0 {
		return ""
	}
	return strings.TrimSpace(description[ts[0].start:ts[len(ts)-1].end])
}

// splitReason says why a description became several workflows.
func splitReason(intents []Intent) string {
	parts := make([]string, len(intents))
	for i, in := range intents {
		parts[i] = fmt.Sprintf("%q asks for a %s", in.SourcePhrase, strings.ReplaceAll(in.TaskType, "_", " "))
	}
	return fmt.Sprintf("The description asks for %d independent deliverables: %s.", len(intents), strings.Join(parts, "; "))
}

// vague reports a request with nothing to plan: no deliverable is named,
// and the ask itself has no object ("can you take a look and help me
// out?", "prepare something for the board", "work on the Leeds stuff").
// The asks that open with a request verb are judged when there are any;
// context clauses count only when an ask with a verb of its own refers
// back to them ("invoice approval takes 3 weeks; speed it up").
func vague(asks []clause, all []token, confidence float64) bool {
	if firstStrong(all) != "" {
		return false
	}
	focus := asks
	var withVerb []clause
	for _, a := range asks {
		if a.verb {
			withVerb = append(withVerb, a)
		}
	}
	if len(withVerb) > 0 {
		focus = withVerb
	}
	objects, specific, placeholder, makes, pronoun := 0, false, false, false, false
	for _, a := range focus {
		objects += contentWords(a.toks)
		for _, t := range a.toks {
			w := t.text
			switch {
			case placeholders[stemWord(w)]:
				placeholder = true
			case makeVerbs[w]:
				makes = true
			case requestVerbs[w] && !emptyVerbs[w] && !fillers[w]:
				specific = true
			case w == "it" || w == "this" || w == "that" || w == "them" || w == "one":
				pronoun = true
			}
		}
	}
	switch {
	case objects == 0 && placeholder:
		return true
	case objects == 0:
		// "write it up" after the facts refers back to them
		context := contentWords(all)
		referred := makes && pronoun && context >= 3
		return !(specific && context >= 2) && !referred
	case objects == 1 && placeholder && !specific:
		return true
	}
	return contentWords(all) <= 1 && confidence < 0.5
}

// emptyVerbs ask for nothing in particular, whatever they refer to
// ("take a look", "handle it"); makeVerbs ask to make something and need
// an object, which may be a pronoun referring back to the context ("write
// it up").
var (
	emptyVerbs = set(`look help handle sort deal do take work think figure follow get go come own care start continue finish move`)
	makeVerbs  = set(`prepare create write draft produce give tell run set make put`)
)

// placeholders stand for an object never named ("the customer thing").
var placeholders = stemSet(`thing things stuff something anything everything whatever side part bit piece area matter situation`)
