package offline

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"svc/adapters/llm"
)

// The offline writer's judgement of an output (llm.KindCheck): what can
// be seen without a model, deterministically. Each finding costs points
// (toneFinding, claimFinding, clashFinding), at most maxFindings are
// listed, and the score is 100 without any.
const (
	toneFinding  = 25
	claimFinding = 25
	clashFinding = 30
	maxFindings  = 8
)

var (
	insults    = regexp.MustCompile(`(?i)\b(stupid|idiot(?:ic)?|dumb|moron(?:ic)?|useless|pathetic|shut up|damn|crap|hate you|ridiculous|incompetent)\b`)
	hype       = regexp.MustCompile(`(?i)\b(guaranteed|100% (?:sure|certain|safe)|risk-free|best ever|revolutionary|trust me|no doubt|obviously|literally perfect)\b`)
	shouting   = regexp.MustCompile(`\b[A-Z]{3,}(?:\s+[A-Z]{3,}){2,}\b`)
	exclaims   = regexp.MustCompile(`!{2,}`)
	sentences  = regexp.MustCompile(`[^.!?\n]+[.!?]?`)
	figure     = regexp.MustCompile(`(?i)\d[\d,.]*\s?(%|percent|million|billion|thousand|usd|eur|\$)|\$\s?\d|\b(19|20)\d{2}\b`)
	absolute   = regexp.MustCompile(`(?i)\b(studies show|research shows|experts agree|scientists say|it is a fact|always|never|everyone knows|the (?:first|only|largest|biggest|best))\b`)
	sourced    = regexp.MustCompile(`(?i)https?://|according to|\bsource[s]?:|\[\d+\]|\bcited?\b|\breport(?:ed)? by\b|\bestimate[sd]?\b|\bapprox(?:imately)?\b|\babout\b|\baround\b|\(\s*[A-Z][A-Za-z]+,? (?:19|20)\d{2}\s*\)`)
	statedFact = regexp.MustCompile(`(?i)\b(the [a-z][a-z ]{2,40}?)\s+(?:is|was|are|were|equals|totals?|costs?|of)\s+(\$?\s?\d[\d,.]*\s?(?:%|percent|million|billion|usd|eur)?)`)
)

// judgeOutput answers a KindCheck request on r.Context.
func judgeOutput(r llm.Request) (llm.Review, error) {
	out := r.Context
	var findings []string
	var cost int
	switch r.Criterion {
	case llm.CheckTone:
		findings, cost = judgeTone(out), toneFinding
	case llm.CheckFactualClaims:
		findings, cost = judgeClaims(out), claimFinding
	case llm.CheckInternalConsistency:
		findings, cost = judgeConsistency(out), clashFinding
	default:
		return llm.Review{}, fmt.Errorf("%w: unknown check criterion %q", llm.ErrBadRequest, r.Criterion)
	}
	if len(findings) > maxFindings {
		findings = findings[:maxFindings]
	}
	score := max(0, 100-cost*len(findings))
	summary := fmt.Sprintf("No %s problem found.", strings.ReplaceAll(r.Criterion, "_", " "))
	if len(findings) > 0 {
		summary = fmt.Sprintf("%d %s problem(s) found.", len(findings), strings.ReplaceAll(r.Criterion, "_", " "))
	}
	return llm.Review{Score: score, Summary: summary, PathTo100: findings}, nil
}

// quote is s cut for a finding.
func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

func judgeTone(out string) []string {
	var f []string
	for _, m := range insults.FindAllString(out, maxFindings) {
		f = append(f, "Remove the disparaging word "+quote(m)+".")
	}
	for _, m := range hype.FindAllString(out, maxFindings) {
		f = append(f, "Replace the overconfident "+quote(m)+" with a measured statement.")
	}
	for _, m := range shouting.FindAllString(out, maxFindings) {
		f = append(f, "Do not shout in capitals: "+quote(m)+".")
	}
	if n := len(exclaims.FindAllString(out, -1)); n > 0 {
		f = append(f, fmt.Sprintf("Drop the repeated exclamation marks (%d places).", n))
	}
	return f
}

// judgeClaims lists the sentences that state a figure or an absolute
// claim without a source or a hedge.
func judgeClaims(out string) []string {
	var f []string
	for _, s := range sentences.FindAllString(out, -1) {
		if strings.TrimSpace(s) == "" || sourced.MatchString(s) {
			continue
		}
		switch {
		case absolute.MatchString(s):
			f = append(f, "Support or soften the absolute claim "+quote(s)+".")
		case figure.MatchString(s):
			f = append(f, "Give the source of the figure in "+quote(s)+", or mark it as an estimate.")
		}
	}
	return f
}

// judgeConsistency lists the subjects given two different figures ("the
// budget is $10" and later "the budget is $12").
func judgeConsistency(out string) []string {
	seen := map[string]string{}
	var order []string
	clash := map[string][]string{}
	for _, m := range statedFact.FindAllStringSubmatch(out, -1) {
		key := strings.ToLower(strings.Join(strings.Fields(m[1]), " "))
		val := strings.TrimRightFunc(strings.Join(strings.Fields(m[2]), " "), func(r rune) bool { return r == '.' || r == ',' || unicode.IsSpace(r) })
		first, ok := seen[key]
		if !ok {
			seen[key] = val
			continue
		}
		if first != val {
			if _, noted := clash[key]; !noted {
				order = append(order, key)
				clash[key] = []string{first}
			}
			clash[key] = append(clash[key], val)
		}
	}
	f := make([]string, 0, len(order))
	for _, k := range order {
		f = append(f, fmt.Sprintf("%s is given as %s: make the figures agree.", quote(k), strings.Join(clash[k], " and as ")))
	}
	return f
}
