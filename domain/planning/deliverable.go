package planning

import (
	"strings"
)

// A deliverable phrase names what a request asks for ("a press release",
// "the JD", "a risk register"). The deliverable decides the task type; the
// topic around it ("about our hiring process") feeds the context. The table
// is English: other languages reach it through their lexicons.
//
// Strong phrases decide the type on their own; weak ones ("policy",
// "architecture", "pricing") name it only when nothing strong is asked for.
var deliverablePhrases = map[string][]string{
	"blog_post": {"company blog", "engineering blog", "eng blog", "for our blog", "for the blog", "blog post", "blog article", "blog", "blogpost", "article", "think piece", "thought leadership piece",
		"guest post", "listicle", "op-ed", "long-form piece", "long form piece", "newsletter article", "medium post", "substack post"},
	"press_release": {"trade press", "for the media", "for media", "for the press", "press release", "news release", "media release", "press statement", "press announcement",
		"pr release", "newswire", "announcement for the press", "announcement for media", "release for the press", "press note"},
	"sales_email_sequence": {"email sequence", "email cadence", "outreach sequence", "drip campaign", "drip sequence",
		"cold email", "cold emails", "sales email", "sales emails", "follow-up emails", "followup emails", "nurture sequence",
		"outbound sequence", "prospecting emails", "outreach emails", "email series", "sequence of emails", "series of emails", "mail sequence"},
	"internal_announcement": {"internal announcement", "all-hands email", "all hands email", "company-wide email", "company wide email",
		"staff memo", "internal memo", "memo to staff", "memo to the team", "memo to employees", "announcement to staff",
		"announcement to the team", "announcement to employees", "announcement to the company", "company announcement",
		"slack announcement", "internal comms", "internal communication", "email to all staff", "email to the whole company",
		"note to the team", "message to staff", "email to all employees", "email to employees", "email to staff",
		"email to the team", "email to everyone", "message to everyone", "memo to all staff", "email to the company", "all-staff email",
		"all staff email", "all-hands announcement", "company-wide announcement", "company wide announcement", "companywide announcement",
		"all-hands message", "all hands message", "all-staff message", "all staff message", "all-hands email", "all hands email", "announcement for employees", "announcement for staff", "message to all staff", "message to employees", "message to the team", "announcement email"},
	"code_review": {"review the code", "code below for bugs", "stored procedure", "code review", "pull request", "pr review", "review of the pr", "merge request", "diff review", "review this code", "review my code", "review our code"},
	"architecture_design": {"system design", "architecture design", "software architecture", "technical design", "reference architecture",
		"architecture proposal", "architecture doc", "target-state blueprint", "target state architecture", "target-state architecture", "technical blueprint", "design doc for the system", "target architecture", "solution architecture"},
	"incident_postmortem": {"postmortem", "post-mortem", "post mortem", "incident report", "incident review", "rca", "root cause analysis",
		"after-action review", "incident write-up", "incident writeup", "outage report", "outage writeup", "outage write-up", "blameless review", "retro on the outage"},
	"security_audit": {"security holes", "security problems", "security gaps", "security weaknesses", "security flaws", "security audit", "security review", "pentest", "pen test", "penetration test", "vulnerability assessment",
		"threat model", "security assessment", "hackable", "vulnerability scan", "appsec review", "security check"},
	"compliance_assessment": {"compliance assessment", "compliance check", "compliance review", "compliance audit", "gap analysis",
		"readiness assessment", "audit readiness", "gap assessment", "dpia", "data protection impact assessment", "conformity assessment", "compliance gap"},
	"risk_assessment": {"risk assessment", "risk register", "risk analysis", "risk matrix", "risk review", "risk evaluation", "risk log", "risk map", "assessment of risk", "risks assessment",
		"assess the risks", "assess risks", "the risks of", "lay out the risks"},
	"policy_drafting": {"acceptable use policy", "code of conduct", "policy document", "policy draft", "new policy", "company policy", "internal policy",
		"retention policy", "remote work policy", "expense policy", "travel policy", "ai use policy", "whistleblowing policy", "security policy", "privacy policy", "leave policy",
		"policy on", "policy for", "policy covering", "policy about", "password policy", "byod policy", "expenses policy"},
	"vendor_due_diligence": {"diligence on", "background check", "vendor due diligence", "due diligence", "vendor assessment", "vendor review", "supplier assessment",
		"vendor evaluation", "supplier evaluation", "vet the vendor", "vet this vendor", "vet this supplier", "vet the supplier",
		"as a vendor", "as a supplier", "potential vendor", "potential supplier", "payments vendor", "new vendor", "new supplier", "third-party assessment", "third party assessment", "third-party risk review", "third party risk review", "third-party risk assessment", "vendor questionnaire", "supplier audit", "vendor risk assessment", "supplier due diligence"},
	"job_description": {"job description", "jd", "job posting", "job post", "job ad", "job advert", "job advertisement", "job listing",
		"role description", "job spec", "vacancy", "job opening text", "hiring post", "careers page post"},
	"interview_plan": {"interview rounds", "rounds of interviews", "selection process", "hiring process from", "interview plan", "interview process", "interview loop", "interview questions", "interview guide", "interview kit",
		"interview scorecard", "hiring loop", "interview stages", "interview rubric", "interview structure", "interviewing plan"},
	"performance_review": {"evaluation for", "written evaluation", "employee evaluation", "staff evaluation", "year-end evaluation", "annual evaluation", "performance review", "perf review", "self-review", "self review", "self-assessment", "self assessment", "annual review",
		"appraisal", "performance evaluation", "360 feedback", "feedback summary", "mid-year review", "year-end review", "performance appraisal"},
	"onboarding_plan": {"first month", "their first month", "his first month", "her first month", "onboarding plan", "30-60-90", "30/60/90", "30 60 90", "first 90 days", "ramp-up plan", "ramp up plan", "new hire plan",
		"induction plan", "first weeks", "her first weeks", "his first weeks", "their first weeks", "onboarding programme", "onboarding program", "onboarding schedule", "onboarding checklist", "first week plan"},
	"project_plan": {"project plan", "project schedule", "work breakdown structure", "wbs", "gantt", "project timeline", "delivery plan",
		"implementation plan", "migration plan", "project roadmap", "plan for the project", "project charter", "workplan", "work plan"},
	"process_improvement": {"suggest improvements", "recommend improvements", "propose improvements", "make it faster", "process improvement", "speed up", "streamline our", "streamline the", "value stream map", "process redesign", "process optimization", "process optimisation", "lean analysis", "six sigma"},
	"launch_plan": {"launch plan", "go-to-market plan", "go to market plan", "gtm plan", "launch checklist", "release plan", "launch strategy",
		"rollout plan", "launch timeline", "launch playbook"},
	"okr_planning": {"okr", "okrs", "objectives and key results", "key results", "okr set", "quarterly objectives"},
	"product_requirements": {"prd", "product requirements", "requirements doc", "requirements document", "product spec", "feature spec",
		"product specification", "functional spec", "functional specification", "user stories", "requirements spec", "spec for the feature", "one-pager for the feature"},
	"user_research_synthesis": {"research synthesis", "affinity map", "personas", "persona", "insights from interviews", "interview synthesis",
		"usability findings", "synthesis of interviews", "synthesis of the interviews", "user interview synthesis", "user research synthesis", "survey synthesis"},
	"pricing_strategy": {"pricing approach", "pricing strategy", "price architecture", "pricing architecture", "pricing model", "pricing tiers", "pricing structure", "price increase", "pricing proposal",
		"pricing recommendation", "packaging and pricing", "pricing and packaging", "monetization strategy", "monetisation strategy", "price list"},
	"growth_experiment_plan": {"growth experiment", "growth experiments", "experiment plan", "a/b test plan", "ab test plan", "experiment backlog",
		"test plan for the funnel", "growth experiment plan", "experimentation roadmap", "a/b tests", "ab tests", "a/b test"},
	"competitive_analysis": {"competitive analysis", "competitor analysis", "battlecard", "battle card", "battlecards", "competitive landscape",
		"competitor comparison", "comparison with competitors", "teardown", "competitor teardown", "competitive comparison", "competitive review", "competitor review"},
	"market_research": {"demand look like", "demand looks like", "who buys", "demand outlook", "addressable market", "market outlook", "market research", "market sizing", "tam", "tam sam som", "market analysis", "market overview", "industry analysis",
		"market landscape", "market study", "market size", "industry overview", "market report"},
	"literature_review": {"literature review", "lit review", "systematic review", "meta-analysis", "review of the literature",
		"review of studies", "review of the research", "evidence review", "state of the art review", "research review", "scoping review",
		"survey of papers", "survey of the literature", "survey of research", "overview of the literature", "overview of studies",
		"survey the papers", "survey the literature", "survey papers"},
	"data_analysis_report": {"data analysis", "analysis report", "metrics report", "cohort analysis", "statistical analysis",
		"analysis of the data", "analysis of the dataset", "data report", "analytics report", "kpi report"},
	"business_plan": {"business plan", "startup plan", "venture plan", "plan for a new business", "plan for the new business", "business proposal"},
	"financial_model_review": {"financial model", "review our financial model", "review the financial model", "financial model review", "model review", "review of the financial model", "review of our financial model",
		"forecast review", "dcf review", "three-statement model", "3-statement model"},
	"strategic_plan": {"strategic plan", "company strategy", "year strategy", "strategy plan", "multi-year strategy", "five-year plan", "5-year plan", "three-year plan",
		"3-year plan", "corporate strategy", "strategic direction", "strategy document", "strategy doc", "long-term strategy", "strategic roadmap"},
	"investment_memo": {"investment memo", "ic memo", "deal memo", "investment thesis", "acquisition memo", "investment recommendation",
		"investment committee memo", "memo for the investment committee", "investment case"},
	"cluster": {"group these", "group them", "into families", "into groups"},
	"rerank": {"rerank", "re-rank", "reorder these", "re-order these", "rank these results", "rank these search results", "rank the results",
		"put them in order", "put them in the order", "put them back in order", "in order from most", "from most to least", "most relevant first"},
	"tag":            {"labels on these", "label every", "label each", "tags to each", "add tags", "tags on these"},
	"quick_research": {"look up", "look it up"},
	"compose": {"email to", "email asking", "message to", "linkedin post", "tweet", "social post", "social media post", "product description", "caption", "tagline", "reply to",
		"response to the customer", "email reply", "short reply", "slogan", "headline", "short bio", "thank-you note", "thank you note"},
}

// weakDeliverables name a type only when no strong phrase is present: they
// are as often a topic as the thing asked for.
var weakDeliverables = map[string]string{
	"policy":       "policy_drafting",
	"architecture": "architecture_design",
	"pricing":      "pricing_strategy",
	"onboarding":   "onboarding_plan",
	"announcement": "internal_announcement",
	"strategy":     "strategic_plan",
	"bottleneck":   "process_improvement",
	"competitor":   "competitive_analysis",
	"launch":       "launch_plan",
}

// phrase is one deliverable phrase in stemmed words.
type phrase struct {
	words    []string
	taskType string
}

// deliverableIndex holds the phrases by their first stemmed word.
var deliverableIndex = indexDeliverables()

func indexDeliverables() map[string][]phrase {
	idx := map[string][]phrase{}
	for tt, list := range deliverablePhrases {
		for _, p := range list {
			w := phraseWords(p)
			if len(w) == 0 {
				continue
			}
			idx[w[0]] = append(idx[w[0]], phrase{words: w, taskType: tt})
		}
	}
	for _, list := range idx { // longest first
		for i := 1; i < len(list); i++ {
			for j := i; j > 0 && len(list[j].words) > len(list[j-1].words); j-- {
				list[j], list[j-1] = list[j-1], list[j]
			}
		}
	}
	return idx
}

// phraseWords are the stemmed words of a phrase, keeping stopwords (a
// phrase such as "reply to" needs them).
func phraseWords(s string) []string {
	var out []string
	for _, t := range scan(fold(s)) {
		if t.punct || t.text == "," {
			continue
		}
		out = append(out, stemWord(t.text))
	}
	return out
}

// stemWord stems one word the way tokens does, without dropping it.
func stemWord(w string) string {
	if len(w) < 2 {
		return w
	}
	return stem(w)
}

// found is a deliverable phrase found in a run of tokens.
type found struct {
	taskType string
	at       int // index of its first token
	n        int // tokens covered
	strong   bool
}

// deliverables lists the deliverable phrases of ts in order, longest match
// first at each position.
func deliverables(ts []token) []found {
	stems := make([]string, len(ts))
	for i, t := range ts {
		w := t.text
		if j := strings.LastIndex(w, "-"); j > 0 && isDigits(w[:strings.Index(w, "-")]) {
			w = w[j+1:] // "3-email sequence": an email sequence
		}
		stems[i] = stemWord(w)
	}
	var out []found
	for i := 0; i < len(ts); i++ {
		matched := false
		for _, p := range deliverableIndex[stems[i]] {
			if i+len(p.words) > len(ts) || !equalWords(stems[i:i+len(p.words)], p.words) {
				continue
			}
			if isInput(stems, i) && !inputTypes[p.taskType] || (p.taskType == "compose" || bareArticle(p)) && !madeHere(stems, i) || negated(stems, i) {
				// "from this article", "these blog posts": material, not the deliverable
				i += len(p.words) - 1
				matched = true
				break
			}
			out = append(out, found{taskType: p.taskType, at: i, n: len(p.words), strong: true})
			i += len(p.words) - 1
			matched = true
			break
		}
		if !matched && stems[i] == "sequenc" && mailWithin(stems[i+1:]) && !negated(stems, i) {
			out = append(out, found{taskType: "sales_email_sequence", at: i, n: 1, strong: true}) // "a sequence of 4 emails"
			matched = true
		}
		if !matched && commNouns[stems[i]] && toAudience(stems[i+1:]) {
			out = append(out, found{taskType: "internal_announcement", at: i, n: 1, strong: true})
			matched = true
		}
		if !matched {
			if tt, ok := weakDeliverables[stems[i]]; ok {
				out = append(out, found{taskType: tt, at: i, n: 1})
			}
		}
	}
	return out
}

// inputMarkers before a phrase make it the material worked on, not the
// thing asked for ("tag these blog posts", "entities from this article").
var inputMarkers = stemSet(`this these those attached following from in of on about regarding per existing above below previous last old current each every all`)

// inputTypes are deliverables named by their input: reviewing a pull
// request or a model is the task itself.
var inputTypes = map[string]bool{"code_review": true, "financial_model_review": true, "incident_postmortem": true}

// isInput reports whether the phrase at i follows an input marker, at most
// one word away.
func isInput(stems []string, i int) bool {
	return i > 0 && inputMarkers[stems[i-1]] || i > 1 && inputMarkers[stems[i-2]]
}

// bareArticle is "article" alone: often the material ("link each
// one to the articles it appears in"), so it must be made here.
func bareArticle(p phrase) bool {
	return len(p.words) == 1 && p.taskType == "blog_post" && (p.words[0] == "articl" || p.words[0] == "article")
}

// negated reports whether the phrase at i is refused ("not another
// postmortem", "I don't need an audit", "instead of a PRD").
func negated(stems []string, i int) bool {
	for j := max(0, i-3); j < i; j++ {
		if negations[stems[j]] {
			return true
		}
	}
	return false
}

var negations = set(`not no don't dont doesn't never instead rather without nor`)

// madeHere reports whether a short text (a tweet, a caption, a headline)
// is the thing to make, not the material: it opens the clause, or follows
// "a"/"an" or a verb of making within three words.
func madeHere(stems []string, i int) bool {
	if i == 0 {
		return true
	}
	for j := max(0, i-3); j < i; j++ {
		if stems[j] == "a" || stems[j] == "an" || makingVerbs[stems[j]] {
			return true
		}
	}
	return false
}

var makingVerbs = stemSet(`write draft compose craft create come up produce suggest generate rewrite`)

// commNouns and audiences make a message to staff an internal
// announcement ("a note to all employees", "an email for the team").
var (
	commNouns = stemSet(`note email mail message memo update letter announcement post`)
	audiences = stemSet(`employees staff team everyone company colleagues workforce organization organisation all-hands department`)
)

// mailWithin reports whether "email" or "mail" follows within three words.
func mailWithin(stems []string) bool {
	for _, w := range stems[:min(len(stems), 4)] {
		if w == "email" || w == "mail" || w == "e-mail" {
			return true
		}
	}
	return false
}

// toAudience reports whether ts open with "to" or "for" and name an
// audience within three words.
func toAudience(ts []string) bool {
	if len(ts) == 0 || ts[0] != "to" && ts[0] != "for" {
		return false
	}
	for j, w := range ts[1:min(len(ts), 4)] {
		if audiences[w] && !(j+2 < len(ts) && channels[ts[j+2]]) { // "for our company blog" is no audience
			return true
		}
	}
	return false
}

// channels after an audience word make it a channel's name.
var channels = stemSet(`blog website site page newsletter account channel intranet`)

func equalWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// tokenText joins the English of ts.
func tokenText(ts []token) string {
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		parts = append(parts, t.text)
	}
	return strings.Join(parts, " ")
}

// askedDeliverable is the type of the first strong deliverable phrase of ts
// that is asked for, not described ("the interview plan is already set, I
// just need the posting": the posting).
func askedDeliverable(ts []token) string {
	for _, d := range deliverables(ts) {
		if d.strong && !describesState(ts[d.at:]) {
			return d.taskType
		}
	}
	return ""
}

// weakDeliverable is the type of the first weak deliverable word of ts.
func weakDeliverable(ts []token) string {
	for _, d := range deliverables(ts) {
		if !d.strong {
			return d.taskType
		}
	}
	return ""
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
