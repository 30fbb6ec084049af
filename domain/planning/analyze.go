package planning

import (
	"context"
	"fmt"
	"strings"

	"svc/domain/catalog"
)

// Tiers of classification, recorded on the WorkflowPlanned event.
const (
	TierGiven     = "given"     // the caller named the task type
	TierLexical   = "lexical"   // deliverable phrases and the naive Bayes over the catalogue
	TierEmbedding = "embedding" // nearest catalogue examples by embedding
	TierLLM       = "llm"       // the LLM fallback, below the confidence threshold
	TierLearned   = "learned"   // the model learned from the labelled development lines (learned.go)
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
	empty := false // an ask for nothing in particular ("thoughts?", "not sure what to do")
	for _, c := range clauses {
		if emptyAsk(c) {
			empty = true
		}
		if c.ask && !emptyAsk(c) {
			asks = append(asks, c)
		} else {
			context = append(context, source(description, c.toks))
		}
	}
	asked := len(asks) > 0
	if !asked {
		asks = []clause{{toks: toks}}
	}
	var g LearnedGuess // the learned model's reading of the whole description
	if cl.learned != nil {
		g = cl.learned.predictTokens(toks)
	}
	intents := cl.intentsOf(description, asks)
	if len(intents) > 1 && cl.learned != nil && cl.learnedUnsplit(asks, g) {
		intents = nil // the model reads one deliverable where the rules read several
	}
	if len(intents) < 2 && cl.learned != nil && cl.learned.Policy.Split <= 1 {
		if split := cl.learnedSplit(description, asks, g); len(split) > 1 {
			intents, a.Tier = split, TierLearned
		}
	}
	if len(intents) > 1 {
		a.Intents = intents
		a.Classification = cl.Classify(tokenText(toks))
		a.Reason = splitReason(intents)
		a.Context = strings.Join(context, " ")
		return a
	}
	var lexical float64
	var byPhrase bool
	// the embedding tier is not asked when the learned model will decide
	learnedDecides := cl.learned != nil && g.Probability >= cl.learned.Policy.Override
	a.Classification, a.Tier, lexical, byPhrase = cl.single(ctx, toks, asks, learnedDecides)
	a.Vague = cl.vague(asks, asked, empty, toks, lexical)
	if cl.learned != nil {
		cl.learnedReading(&a, g, byPhrase)
	}
	return a
}

// single classifies the description as one deliverable: the first strong
// deliverable phrase of its asks when there is one, else the naive Bayes
// over its asks, or over the whole text when the asks alone say too little.
// The lexical confidence is returned too: vagueness is judged on it.
func (cl *Classifier) single(ctx context.Context, all []token, asks []clause, noEmbedding bool) (Classification, string, float64, bool) {
	for _, c := range asks {
		if tt := askedDeliverable(c.toks); tt != "" {
			return decided(cl.Classify(tokenText(c.toks)), tt), TierLexical, 1, true
		}
	}
	c, tier, lexical := cl.ruled(ctx, all, asks, noEmbedding)
	return c, tier, lexical, false
}

// ruled is single when no strong deliverable phrase is asked for: the
// naive Bayes, the verb rules, a weak deliverable, the embedding tier.
func (cl *Classifier) ruled(ctx context.Context, all []token, asks []clause, noEmbedding bool) (Classification, string, float64) {
	var askToks []token
	for _, c := range asks {
		askToks = append(askToks, c.toks...)
	}
	best := cl.Classify(tokenText(askToks))
	if len(askToks) != len(all) {
		if whole := cl.Classify(tokenText(all)); whole.Confidence > best.Confidence+0.15 {
			best = whole
		}
	}
	verb := ""
	if len(asks) > 0 {
		verb = leadVerb(asks[0].toks)
		if verb == "" && len(asks[0].toks) > 0 && asks[0].toks[0].text == "from" {
			verb = firstVerb(asks[0].toks) // "From this stack trace, just give me the exception type"
		}
	}
	if tt := verbKind(verb, scoringKind(best.TaskType, askToks), askToks); tt != best.TaskType {
		return decided(best, tt), TierLexical, best.Confidence
	}
	if q := asks[len(asks)-1]; factualQuestion(q) && best.TaskType != "quick_research" && onlyLeadIns(asks[:len(asks)-1]) {
		// "from what date do the EU AI Act rules apply?" asks for a fact,
		// whatever its topic
		return decided(best, "quick_research"), TierLexical, best.Confidence
	}
	var weak string
	for _, c := range asks {
		for _, d := range deliverables(c.toks) {
			if !d.strong && weak == "" {
				weak = d.taskType
			}
		}
	}
	if weak != "" && best.TaskType != weak && (best.Confidence < 0.6 || len(asks) > 0 && makesWeak(asks[0].toks)) {
		return decided(best, weak), TierLexical, best.Confidence
	}
	if best.Confidence >= embedBelow || best.TaskType == "" || noEmbedding {
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
		c := best
		c.TaskType, c.Runner, c.Evidence = tt, best.TaskType, nil
		c.Confidence = round3(max(best.Confidence, min(0.9, 0.5+lead*5)))
		return c, TierEmbedding, best.Confidence
	}
	return best, TierLexical, best.Confidence
}

// decided is classification c turned to task type tt, named by a
// deliverable phrase: its confidence is at least 0.9, its evidence kept
// only when the naive Bayes agreed.
func decided(c Classification, tt string) Classification {
	if c.TaskType != tt {
		c.TaskType, c.Runner, c.Evidence = tt, c.TaskType, nil
	}
	c.Confidence = max(c.Confidence, 0.9)
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
	prevVerb := ""
	for _, c := range asks {
		tt, conf, byPhrase := "", 0.0, false
		// a sentence that opens with a verb after a deliverable was asked
		// for says how to make it ("Apologize, give the new date";
		// "summarize methods and findings"), unless it announces another
		// request ("also", "separately") or names its own deliverable
		// after a deliverable named by a phrase, a clause split off by a
		// semicolon elaborates it too ("…studies from 2015 onward;
		// summarize methods and findings"); after an atomic ask it is the
		// next item of a list ("classify these …; grade the …")
		elaborates := len(out) > 0 && (!c.split || c.semicolon && out[len(out)-1].byPhrase) && !factualQuestion(c)
		if len(out) > 0 && c.colon && !c.split && !c.verb && commas(c.toks) >= 2 {
			// "the interview process: system design, coding, behavioral": contents
			out[len(out)-1].SourcePhrase += "; " + source(description, c.toks)
			continue
		}
		if d := askedDeliverable(c.toks); d != "" {
			tt, conf, byPhrase = d, 0.9, true
			cc := cl.Classify(tokenText(c.toks))
			if cc.TaskType == tt {
				conf = max(conf, cc.Confidence)
			}
		} else if w := weakDeliverable(c.toks); w != "" && !elaborates && makesWeak(c.toks) {
			tt, conf, byPhrase = w, 0.8, true // "write our new password policy"
		} else if !elaborates && (c.verb || c.question || c.opened || c.split) && (contentWords(c.toks) >= 2 || c.split && atomicVerbs[leadVerb(c.toks)] && contentWords(c.toks) == 1 && !refersBack(c.toks)) && !emptyVerbs[leadVerb(c.toks)] {
			cc := cl.Classify(tokenText(c.toks))
			cc.TaskType = verbKind(leadVerb(c.toks), scoringKind(cc.TaskType, c.toks), c.toks)
			confident := cc.Confidence >= 0.7 || c.split && cc.Posterior >= 0.9 && cc.Confidence >= 0.5 // announced requests need less
			if !confident && cl.learned != nil {
				// the learned model may vouch for a clause the naive Bayes is unsure of
				if g := cl.learned.predictTokens(c.toks); g.Probability >= cl.learned.Policy.Clause && g.Vague < 0.5 {
					cc.TaskType, cc.Confidence = refineType(c.toks, g.TaskType), round3(g.Probability)
					confident = true
				}
			}
			if c.question && !c.verb && cc.TaskType != "quick_research" && cc.TaskType != "quick_classification" && len(out) > 0 {
				confident = false // "what went wrong, why monitoring missed it?" lists contents
			}
			if len(out) > 0 && (!out[len(out)-1].byPhrase && siblings(out[len(out)-1].TaskType, cc.TaskType) || sameAction(prevVerb, leadVerb(c.toks))) {
				confident = false // "mark these answers against the key and give a score per student": one job
			}
			if confident {
				tt, conf = cc.TaskType, cc.Confidence
			}
		}
		phrase := source(description, c.toks)
		if v := leadVerb(c.toks); v != "" {
			prevVerb = v
		}
		if tt == "" {
			if len(out) > 0 {
				out[len(out)-1].SourcePhrase += "; " + phrase
			}
			continue
		}
		out = addIntent(out, Intent{TaskType: tt, Confidence: round3(conf), SourcePhrase: phrase, byPhrase: byPhrase,
			question: c.question && !c.verb})
	}
	out = cl.foldFramingQuestion(out)
	if len(out) < 2 {
		return nil
	}
	return out
}

// addIntent adds in to out, or its phrase to the intent of out of the
// same type (two asks of one deliverable are one intent).
func addIntent(out []Intent, in Intent) []Intent {
	for i := range out {
		if out[i].TaskType == in.TaskType {
			out[i].SourcePhrase += "; " + in.SourcePhrase
			return out
		}
	}
	return append(out, in)
}

// foldFramingQuestion folds an opening question that names no deliverable
// into the deliverable a later ask names ("How do we take our API to
// developers? … Give me a launch plan in phases": the plan answers the
// question). A factual or atomic question stays a request of its own.
func (cl *Classifier) foldFramingQuestion(out []Intent) []Intent {
	if len(out) < 2 || out[0].byPhrase || !out[0].question || !cl.workflow(out[0].TaskType) {
		return out
	}
	for j := 1; j < len(out); j++ {
		if out[j].byPhrase && cl.workflow(out[j].TaskType) {
			out[j].SourcePhrase = out[0].SourcePhrase + " " + out[j].SourcePhrase
			return out[1:]
		}
	}
	return out
}

// workflow reports whether task type id is a multi-step deliverable.
func (cl *Classifier) workflow(id string) bool {
	t, ok := cl.cat.TaskType(id)
	return ok && t.Shape == catalog.ShapeWorkflow
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
