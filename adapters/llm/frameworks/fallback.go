package frameworks

import "strings"

// fallbackSpecs are the headings of a framework the table does not know, by
// catalogue domain; "" is the generic fallback.
var fallbackSpecs = map[string]Spec{
	"strategy": {Kind: "content", Purpose: "Frames the strategic situation, the options open and the recommended course.",
		Sections: []string{"Situation", "Strategic Options", "Evaluation", "Recommendation"}},
	"product": {Kind: "content", Purpose: "Works out who the users are, what they need and what to build first.",
		Sections: []string{"Users and Needs", "Opportunities", "Prioritisation", "Success Metrics"}},
	"engineering": {Kind: "content", Purpose: "Examines the system in scope and says what to change.",
		Sections: []string{"Scope and Components", "Findings", "Risks", "Recommendations"}},
	"governance": {Kind: "content", Purpose: "Sets the obligations against the controls in place and plans the remediation.",
		Sections: []string{"Obligations and Scope", "Risks and Controls", "Gaps", "Remediation Plan"}},
	"research": {Kind: "research", Purpose: "States the question, how it is answered and what the evidence supports.",
		Sections: []string{"Research Question", "Sources and Method", "Findings", "Confidence and Gaps"}},
	"operations": {Kind: "content", Purpose: "Plans the work: activities, owners, timeline and what could block it.",
		Sections: []string{"Current State", "Activities and Owners", "Timeline", "Risks and Dependencies"}},
	"hr": {Kind: "content", Purpose: "Defines the role or people process, its criteria and how success is measured.",
		Sections: []string{"Role and Context", "Criteria", "Process", "Success Measures"}},
	"content": {Kind: "content", Purpose: "Shapes the message for its audience: key points, structure and call to action.",
		Sections: []string{"Audience", "Key Messages", "Structure", "Call to Action"}},
	"process": {Kind: "process", Purpose: "Checks the work so far and records what must be corrected.",
		Sections: []string{"Inputs Reviewed", "Checks Performed", "Findings", "Corrections"}},
	"": {Kind: "content", Purpose: "Analyses the task and recommends what to do.",
		Sections: []string{"Overview", "Analysis", "Recommendations", "Next Steps"}},
}

// validDomain reports whether d is a domain with fallback headings.
func validDomain(d string) bool {
	_, ok := fallbackSpecs[d]
	return ok && d != ""
}

// domainHints are, in order of precedence, name fragments that suggest a
// domain for a framework the table does not know.
var domainHints = []struct {
	domain string
	words  []string
}{
	{"process", []string{"check", "verification", "validation", "review protocol", "quality gate"}},
	{"governance", []string{"risk", "compliance", "regulat", "policy", "audit", "control", "privacy", "gdpr", "governance", "vendor", "legal"}},
	{"engineering", []string{"security", "threat model", "code", "architecture", "api", "performance", "incident", "deploy", "rollback", "dependency", "system", "infrastructure", "technical"}},
	{"research", []string{"research", "survey", "literature", "sizing", "trend", "statistic", "cohort", "evidence", "data", "benchmark", "study"}},
	{"hr", []string{"hiring", "hire", "interview", "role", "onboarding", "compensation", "career", "talent", "competenc", "feedback", "job description"}},
	{"content", []string{"content", "copy", "blog", "email", "message", "communication", "headline", "article", "writing", "editorial", "press", "newsletter", "narrative"}},
	{"product", []string{"product", "user", "customer", "persona", "feature", "funnel", "pricing", "price", "growth", "journey", "backlog", "prioriti"}},
	{"operations", []string{"plan", "project", "process", "okr", "milestone", "stakeholder", "change", "launch", "workflow", "schedule", "roadmap", "operations"}},
	{"strategy", []string{"strategy", "strategic", "market", "competit", "financial", "valuation", "invest", "cost", "revenue", "business", "portfolio", "matrix", "canvas"}},
}

// inferDomain guesses the domain of an unknown framework from its name; ""
// when nothing suggests one.
func inferDomain(name string) string {
	n := strings.ToLower(name)
	for _, h := range domainHints {
		for _, w := range h.words {
			if strings.Contains(n, w) {
				return h.domain
			}
		}
	}
	return ""
}
