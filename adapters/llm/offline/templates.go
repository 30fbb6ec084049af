package offline

import "strings"

// sectionTemplate is how the offline writer fills a section of one heading
// class: an opening line, up to three bullets (one key phrase each) and a
// closing line. Placeholders: {H} heading, {S} subject, {L} task label,
// {F} framework, {P} the bullet's key phrase.
type sectionTemplate struct {
	intro   []string // variants, one chosen per heading
	bullets []string
	close   string
}

// headingClasses classify a heading by fragments of its lower-cased text,
// in order of precedence; the first match wins.
var headingClasses = []struct {
	class string
	words []string
}{
	{"evidence", []string{" source", "evidence", "claims", "studies", "study", "literature", " search", "databases", "quotes", "observations", "proof", "deals reviewed", "market data", "historical", "dataset"}},
	{"risk", []string{"threat", "risk", "hazard", "failure", "vulnerab", "spoofing", "tampering", "repudiation", "disclosure", "denial of service", "elevation", "escalation", "injection", "attack", "exposure", "misconfiguration", "concentration", "warning", "rollback trigger", "incident", "exposed"}},
	{"action", []string{"mitigat", "countermeasure", "corrective", "preventive"}},
	{"negative", []string{"weakness", "pain", "frustration", "waste", "loss reasons", "dogs", "biased", "jargon", "unsupported", "gap", "contributing factors", "limitation", "development areas", "inflation", "too expensive", "getting expensive", "problem"}},
	{"positive", []string{"strength", "stars", "cash cows", "what went well", "gains", "attractive", "benefit", "value driver", "unfair advantage", "win reasons", "advantage", "differentiation", "value proposition"}},
	{"opportunity", []string{"opportunit", "market development", "product development", "diversification", "penetration", "openings", "question marks", "growth", "upgrade paths", "why now"}},
	{"finance", []string{"cost", "price", "pricing", "revenue", "cash", "valuation", "margin", "lifetime value", "payback", "discount", "funding", "financial", "income", "balance sheet", "break-even", "salary", "compensation", "equity", "multiples", "terminal value", "too cheap", "bargain", "fixed", "variable", "return", "budget", "economics"}},
	{"metric", []string{"metric", " measure", "key results", "kpi", "scor", "rating", "indicator", "north star", "sample size", "statistic", "retention", "reach", "impact", "confidence", "effort", " ease", "likelihood", "weights", "rubric", "success criteria", "acquisition", "activation", "referral", "proficiency", "distribution", "completeness", "accuracy", "consistency", "timeliness", "readability", "coverage"}},
	{"timeline", []string{"timeline", "milestone", " date", "deadline", "days", "timing", " sequenc", "schedule", "critical path", "durations", "first week", "before day one", "cadence", "stages", "launch", "release", "cycle", "timestamps", "float", "checkpoints", "roadmap", "phase"}},
	{"action", []string{"recommend", " action", "countermeasure", "mitigation", "remediation", "treatment", "response", "next steps", "preventive", "corrective", "support", "suggested", "moves", "decision rules", "initiatives", "lessons", "correction", "rewrites", "edits", "adjustments", "plan", "implications", "guidance", "do", "act"}},
	{"people", []string{"stakeholder", "audience", "customer", "persona", "segment", "buyer", "user", "team", "roles", "owner", "responsible", "accountable", "consulted", "informed", "raters", "readers", "supplier", "competitor", "peer", "affected groups", "introductions", "people", "entities", "icp", "firmographics"}},
	{"question", []string{"question", "hypothes", "assumption", "uncertaint", "governing", "why", "intent", "thesis"}},
	{"option", []string{"option", "alternative", "decision", "variants", "preferred", "ranked", "prioriti", "must have", "should have", "could have", "won't have", "selection", "pick", "trade-off", "candidate", "ideas", "scenario"}},
	{"scope", []string{"definition", "scope", "boundaries", "context", "description", "purpose", "inventory", "components", "containers", "processes", "data stores", "entry points", "criteria", "requirements", "structure", "outline", "taxonomy", "label", "overview", "situation", "frame", "current state", "target state", "brief"}},
}

// sectionTemplates are the templates of each heading class; "" is the
// default.
var sectionTemplates = map[string]sectionTemplate{
	"positive": {
		intro:   []string{"{H} of {S}: the advantages worth building on.", "{H}: what already works in favour of {S}."},
		bullets: []string{"{P}: a point of strength to protect and make visible in the {L}.", "{P}: an asset that is hard to copy quickly; record the evidence for it.", "{P}: a capability to lean on when choosing where to act first."},
		close:   "Keep only the strengths that can be shown with evidence, and tie each to an opportunity or a decision.",
	},
	"negative": {
		intro:   []string{"{H} of {S}: where it falls short today.", "{H}: what holds {S} back."},
		bullets: []string{"{P}: a limitation to address before it constrains the {L}.", "{P}: a gap that needs an owner and either a fix or an explicit acceptance.", "{P}: a pain point to confirm with the people it affects."},
		close:   "Rank these by how much they block the goal, and pair each with a remedy.",
	},
	"opportunity": {
		intro:   []string{"{H} for {S}: openings the {L} can use.", "{H}: where {S} can gain ground."},
		bullets: []string{"Extend {P} where demand is visible but not yet served.", "Combine {P} with existing strengths to open a new path.", "Test {P} with a small, reversible experiment before committing."},
		close:   "Size each opening and keep the two or three with the best ratio of value to effort.",
	},
	"risk": {
		intro:   []string{"{H} for {S}: what could go wrong and how much it would matter.", "{H}: the exposures of {S}."},
		bullets: []string{"{P}: likelihood and impact to be rated; name an early-warning sign.", "{P}: exposure that grows if nothing is done; set a mitigation and an owner.", "{P}: a dependency outside direct control; plan a fallback."},
		close:   "Review these at each milestone and retire the ones that no longer apply.",
	},
	"metric": {
		intro:   []string{"{H} for {S}: how progress is measured.", "{H}: the measures that show whether {S} is on track."},
		bullets: []string{"A measure tied to {P}, with a baseline and a target.", "A leading indicator for {P}, reviewed on a fixed rhythm.", "A guardrail so that gains on {P} do not cost quality elsewhere."},
		close:   "Every measure needs a source, an owner and a review date; drop those nobody will act on.",
	},
	"finance": {
		intro:   []string{"{H} for {S}: the economics behind the decision.", "{H}: the money side of {S}."},
		bullets: []string{"Cost and revenue drivers linked to {P}, stated as ranges until data confirm them.", "Sensitivity to {P}: the assumption that moves the outcome most.", "Cash timing for {P}: when money goes out and when it comes back."},
		close:   "Figures are to be filled from the organisation's own data; the structure above says which ones matter.",
	},
	"action": {
		intro:   []string{"{H} for {S}: what to do, in order.", "{H}: the actions that follow for {S}."},
		bullets: []string{"Act first on {P}: the change with the clearest benefit for the effort.", "Then address {P}, with an owner and a date.", "Hold {P} until the first results are in, then decide."},
		close:   "Each action names who does it, by when, and how success will be checked.",
	},
	"people": {
		intro:   []string{"{H} in {S}: who is involved and what they need.", "{H}: the people {S} depends on."},
		bullets: []string{"Those closest to {P}: their goals, constraints and what would make them say yes.", "Those affected by {P}: how they are informed and consulted.", "Decision makers for {P}: the evidence they need to decide."},
		close:   "Confirm this picture with two or three of the people concerned before relying on it.",
	},
	"timeline": {
		intro:   []string{"{H} for {S}: the sequence and its checkpoints.", "{H}: when each part of {S} happens."},
		bullets: []string{"First, settle {P}, since later work depends on it.", "Next, deliver {P} and check it against the success criteria.", "Then roll out {P}, with a go/no-go review before each stage."},
		close:   "Dates are set backwards from the deadline, with slack for the steps that carry the most uncertainty.",
	},
	"evidence": {
		intro:   []string{"{H} for {S}: what the conclusions rest on.", "{H}: the basis of the findings on {S}."},
		bullets: []string{"The task description itself, which sets the scope around {P}.", "Material on {P} still to be gathered and cited; the offline writer consulted no external source.", "Statements about {P} that need confirmation before they are relied on."},
		close:   "Anything not backed by a named source is an assumption to verify.",
	},
	"question": {
		intro:   []string{"{H} for {S}: what has to be answered.", "{H}: the open questions behind {S}."},
		bullets: []string{"What is true today about {P}, and how do we know?", "Which assumption about {P} would change the recommendation if it were wrong?", "What would have to be observed about {P} to confirm the direction?"},
		close:   "Answering these in order keeps the analysis tied to the decision it serves.",
	},
	"option": {
		intro:   []string{"{H} for {S}: the choices on the table.", "{H}: how the options for {S} compare."},
		bullets: []string{"Built around {P}: strongest on impact, heavier on effort.", "Built around {P}: faster to start, narrower in reach.", "Built around {P}: lowest risk, smallest upside."},
		close:   "Choose against explicit criteria and weights, and record why the others were not chosen.",
	},
	"scope": {
		intro:   []string{"{H} for {S}: the frame the rest of the {F} uses.", "{H}: what {S} covers and what it leaves out."},
		bullets: []string{"In scope: {P} and what directly shapes it.", "Related, handled with care: {P}.", "Used consistently: {P} means the same thing in every section."},
		close:   "A clear frame keeps comparisons like with like and stops the work from drifting.",
	},
	"": {
		intro:   []string{"{H}, as it applies to {S}.", "{H}: what the {F} shows for {S}."},
		bullets: []string{"{P}: what a change here would mean for the {L}.", "{P}: the factor to watch, and who would notice first.", "{P}: where the evidence is thin and needs checking."},
		close:   "This part of the {F} feeds the recommendations of the final deliverable.",
	},
}

// headingClass returns the class of heading, "" when none fits.
func headingClass(heading string) string {
	h := " " + strings.ToLower(heading) + " "
	for _, c := range headingClasses {
		for _, w := range c.words {
			if len(w) <= 3 {
				w = " " + w + " " // short fragments match whole words only
			}
			if strings.Contains(h, w) {
				return c.class
			}
		}
	}
	return ""
}

// fill replaces the placeholders {H}, {S}, {L}, {F} and {P} of tpl in one
// pass (text put in is never read again for placeholders). It runs for
// every line the offline writer writes, so it builds no strings.Replacer.
func fill(tpl, heading, subject, label, framework, phrase string) string {
	var b strings.Builder
	b.Grow(len(tpl) + len(subject) + len(heading))
	for i := 0; i < len(tpl); i++ {
		if tpl[i] == '{' && i+2 < len(tpl) && tpl[i+2] == '}' {
			v, ok := "", true
			switch tpl[i+1] {
			case 'H':
				v = heading
			case 'S':
				v = subject
			case 'L':
				v = label
			case 'F':
				v = framework
			case 'P':
				v = phrase
			default:
				ok = false
			}
			if ok {
				b.WriteString(v)
				i += 2
				continue
			}
		}
		b.WriteByte(tpl[i])
	}
	return b.String()
}
