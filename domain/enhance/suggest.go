package enhance

import "strings"

// examples are the sample phrases quoted in suggestions, one per criterion.
type examples struct {
	goal, audience, scope, format, constraints, length, context string
}

// generic is used when no task type is given or the type is unknown.
var generic = examples{
	goal:        "Compare the options and recommend one",
	audience:    "for our leadership team",
	scope:       "cover the three largest options, EU market only, last 12 months",
	format:      "a memo with a short summary and a comparison table",
	constraints: "by Friday, neutral tone, avoid jargon",
	length:      "no more than 600 words",
	context:     "we are a 40-person B2B software company; current figures are attached",
}

// families group task types that share example phrases; byType then
// overrides single fields for one type.
var families = map[string]examples{
	"content": {
		goal:        "Write a post announcing our new reporting feature",
		audience:    "for existing customers who use our dashboards",
		scope:       "cover the three main changes in the March release, nothing on pricing",
		format:      "a headline, an intro paragraph and three sections with subheadings",
		constraints: "friendly tone, no jargon, publish by Thursday",
		length:      "about 800 words",
		context:     "we are a 40-person analytics startup and this is our largest release this year",
	},
	"engineering": {
		goal:        "Review the attached change and list the defects by severity",
		audience:    "for the backend engineers on the payments team",
		scope:       "only the checkout service, the 12 files in the attached diff",
		format:      "a findings table with file, line, severity and fix",
		constraints: "must not change the public API or name customers; ready by Wednesday",
		length:      "one page or less",
		context:     "we run Go services on Kubernetes and Postgres; current design notes are attached",
	},
	"governance": {
		goal:        "Assess our current controls and list the gaps to close",
		audience:    "for our compliance officer and the board's audit committee",
		scope:       "customer data in the EU only, the three production systems, controls as of Q3",
		format:      "a gap table with requirement, current state, risk rating and owner",
		constraints: "cite the exact article or control number; must be ready before the audit on 1 June",
		length:      "no more than four pages",
		context:     "we are a 60-person fintech storing card and identity data in AWS",
	},
	"hr": {
		goal:        "Draft the hiring materials for this role",
		audience:    "for the hiring managers and interview panel",
		scope:       "one senior role, remote within the EU, first 90 days",
		format:      "bullet points under clear headings",
		constraints: "inclusive language, salary band 70-90k EUR, must follow our levelling guide",
		length:      "one page",
		context:     "we are a 120-person SaaS company hiring our first person in this function",
	},
	"operations": {
		goal:        "Plan the work with milestones, owners and dates",
		audience:    "for the project sponsor and team leads",
		scope:       "the two teams involved, from July to the end of Q3",
		format:      "a milestone table with owner, date and dependency",
		constraints: "budget under $50k, no more than three people full time, done by 30 September",
		length:      "two pages",
		context:     "we currently do this manually in spreadsheets and it takes 12 days",
	},
	"product": {
		goal:        "Define the problem, the options and a recommendation",
		audience:    "for the product and engineering leads",
		scope:       "self-serve customers on the Pro plan, web app only, next two quarters",
		format:      "a one-page brief with goals, non-goals and success metrics",
		constraints: "no changes to the billing system; decision needed by the planning meeting on Monday",
		length:      "about 700 words",
		context:     "we are a B2B SaaS product at $5M ARR with 2,000 paying teams",
	},
	"research": {
		goal:        "Research the question and summarise the evidence",
		audience:    "for our leadership team",
		scope:       "three named competitors, EU market only, the last 12 months",
		format:      "a comparison table followed by five key findings",
		constraints: "cite a source for every figure, neutral tone, by Friday",
		length:      "two pages",
		context:     "we are a 40-person B2B startup selling to mid-market retailers",
	},
	"strategy": {
		goal:        "Evaluate the options and recommend a decision",
		audience:    "for our board and investors",
		scope:       "the next three years, North American market, our two product lines",
		format:      "an investment-style memo with a summary, financial table and risks",
		constraints: "state every assumption, conservative case first, ready before the board meeting on the 15th",
		length:      "no more than three pages",
		context:     "we are at $20M ARR, growing 30% a year, with 18 months of runway",
	},
	"atomic": {
		goal:        "Tag each item with one label from the list",
		audience:    "for the support operations team",
		scope:       "the 40 tickets below, labels: billing, bug, feature request, other",
		format:      "JSON with one object per item: id and label",
		constraints: "use only the listed labels; must not invent new ones",
		length:      "one label per item",
		context:     "the items are customer support tickets from our web app",
	},
}

var familyOf = map[string]string{
	"blog_post": "content", "press_release": "content", "sales_email_sequence": "content",
	"internal_announcement": "content", "compose": "content",
	"code_review": "engineering", "architecture_design": "engineering",
	"incident_postmortem": "engineering", "security_audit": "engineering",
	"compliance_assessment": "governance", "risk_assessment": "governance",
	"policy_drafting": "governance", "vendor_due_diligence": "governance",
	"job_description": "hr", "interview_plan": "hr", "performance_review": "hr", "onboarding_plan": "hr",
	"project_plan": "operations", "process_improvement": "operations", "launch_plan": "operations",
	"okr_planning":         "operations",
	"product_requirements": "product", "user_research_synthesis": "product",
	"pricing_strategy": "product", "growth_experiment_plan": "product",
	"competitive_analysis": "research", "market_research": "research", "literature_review": "research",
	"data_analysis_report": "research", "quick_research": "research",
	"business_plan": "strategy", "financial_model_review": "strategy", "strategic_plan": "strategy",
	"investment_memo": "strategy",
	"tag":             "atomic", "score": "atomic", "rerank": "atomic", "extract_entities": "atomic",
	"parse_query": "atomic", "cluster": "atomic", "grade_set": "atomic",
	"quick_classification": "atomic", "quick_extraction": "atomic", "quick_scoring": "atomic",
}

// byType overrides family examples for single task types (audience and
// format at least, so that every type reads as written for it).
var byType = map[string]examples{
	"blog_post":               {audience: "for engineers evaluating our API", format: "a blog article with a headline, intro and three subheaded sections"},
	"press_release":           {audience: "for trade journalists and our customers", format: "a press release with headline, dateline, CEO quote and boilerplate", length: "400 to 500 words"},
	"sales_email_sequence":    {audience: "for VPs of Finance at logistics companies with 200-1,000 staff", format: "four emails, each with subject line and body, sent over two weeks", length: "under 120 words per email"},
	"internal_announcement":   {audience: "for all employees, including the Berlin office", format: "a Slack post with a short summary and a what-to-do list", length: "under 200 words"},
	"compose":                 {audience: "for the customer who opened the ticket", format: "a plain-text reply with a greeting and sign-off", length: "three sentences"},
	"code_review":             {audience: "for the author of the pull request", format: "inline-style comments grouped by file, then a summary"},
	"architecture_design":     {audience: "for the platform engineering team and our CTO", format: "a design doc with a component diagram, data flow and trade-offs table", scope: "50k events per second, three regions, the ingestion and storage layers only"},
	"incident_postmortem":     {audience: "for the engineering team and the executive team", format: "a blameless postmortem: summary, timeline, root cause, action items table", scope: "the checkout outage on 3 March from 14:05 to 17:10 UTC"},
	"security_audit":          {audience: "for our security lead and the engineers who own the service", format: "a findings table with severity, evidence and remediation", scope: "the public API and the auth service, OWASP top 10 only"},
	"compliance_assessment":   {audience: "for our DPO and the leadership team", scope: "GDPR articles 5, 28 and 32, EU customer data only"},
	"risk_assessment":         {audience: "for the steering committee", format: "a risk register table with likelihood, impact, score and mitigation"},
	"policy_drafting":         {audience: "for all employees and contractors", format: "a policy with purpose, scope, rules, exceptions and owner sections"},
	"vendor_due_diligence":    {audience: "for our procurement lead and CISO", format: "a scorecard table covering security, financials, SLAs and references", scope: "the two shortlisted vendors, Acme and Globex, three-year contract"},
	"job_description":         {audience: "for senior backend engineers considering a move", format: "a job posting with about-us, responsibilities, requirements and benefits sections"},
	"interview_plan":          {audience: "for the four interviewers on the panel", format: "a stage-by-stage table with interviewer, questions and scoring rubric"},
	"performance_review":      {audience: "for my direct report and their skip-level manager", format: "strengths, areas to grow and goals for next half as bullet points", scope: "January to June, the three projects they led"},
	"onboarding_plan":         {audience: "for a new engineering manager starting on Monday", format: "a 30-60-90 day table with goals, meetings and deliverables"},
	"project_plan":            {audience: "for the project sponsor and the three team leads", format: "a phase and milestone table with owners, dates and dependencies"},
	"process_improvement":     {audience: "for the finance operations manager", format: "a current-state versus future-state table with the expected time saved"},
	"launch_plan":             {audience: "for the marketing, sales and support leads", format: "a launch timeline table with channel, owner, date and success metric"},
	"okr_planning":            {audience: "for the marketing team and the CEO", format: "three objectives with three measurable key results each"},
	"product_requirements":    {audience: "for the engineering and design leads", format: "a PRD with problem, user stories, acceptance criteria and non-goals"},
	"user_research_synthesis": {audience: "for the product team planning next quarter", format: "themes ranked by frequency, each with supporting quotes", scope: "the 14 interview transcripts attached, small-business customers only"},
	"pricing_strategy":        {audience: "for our head of sales", format: "a tier table with price, limits and target customer, then a recommendation", scope: "our three plans against Acme and Globex, EU market only"},
	"growth_experiment_plan":  {audience: "for the growth team and the analyst who will run the test", format: "one experiment card per idea: hypothesis, metric, sample size, duration"},
	"competitive_analysis":    {audience: "for our sales team", format: "a feature and pricing comparison table followed by a battlecard"},
	"market_research":         {audience: "for our investors", format: "a market sizing table (TAM, SAM, SOM) with sources, then key trends", scope: "plant-based pet food, Germany and Austria, 2024-2028"},
	"literature_review":       {audience: "for a non-specialist policy audience", format: "a structured review with a summary table of studies and their findings", scope: "peer-reviewed studies published since 2018, English only"},
	"data_analysis_report":    {audience: "for the regional sales managers", format: "a report with three charts and a short findings list", scope: "the attached CSV, four regions, January to June"},
	"quick_research":          {audience: "for a customer-facing answer", format: "a one-sentence answer with its source", length: "one or two sentences"},
	"business_plan":           {audience: "for the bank reviewing our SBA loan application", format: "a business plan with market, operations, team and a three-year financial table"},
	"financial_model_review":  {audience: "for our CFO before the investor meeting", format: "an issues table with sheet, cell, problem and suggested fix", scope: "the revenue and cash-flow tabs of the attached five-year model"},
	"strategic_plan":          {audience: "for the leadership team offsite", format: "vision, three strategic priorities and initiatives with owners"},
	"investment_memo":         {audience: "for our investment committee", format: "an IC memo: thesis, market, team, traction, risks, recommendation"},
	"tag":                     {audience: "for the support operations dashboard"},
	"score":                   {goal: "Score each lead from 1 to 10 for fit", format: "JSON with id, score and a one-line reason", scope: "the 50 leads below, fit against our ideal customer profile"},
	"rerank":                  {goal: "Rerank the results by relevance to the query", format: "the item ids in the new order, most relevant first", scope: "the 20 results below for the query 'running shoes'"},
	"extract_entities":        {goal: "Extract the named entities", format: "JSON lists of companies, people and dates", scope: "the contract below, party names and all dates"},
	"parse_query":             {goal: "Turn the query into structured filters", format: "JSON with fields destination, date range and max price", scope: "the single query 'cheap flights to rome next weekend'"},
	"cluster":                 {goal: "Group the items into themes", format: "JSON with theme name and the ids in each theme", scope: "the 500 survey comments below, at most eight themes"},
	"grade_set":               {goal: "Grade each submission against the rubric", format: "a table with submission id, grade and one-line justification", scope: "the 30 essays below, the attached rubric"},
	"quick_classification":    {goal: "Classify the message", format: "one label from the list", scope: "the single message below, labels: spam, not spam"},
	"quick_extraction":        {goal: "Extract the invoice total and due date", format: "JSON with total and due_date", scope: "the invoice text below"},
	"quick_scoring":           {goal: "Score the subject line from 1 to 10", format: "the score and one sentence of reasoning", scope: "the single subject line below"},
}

// examplesFor returns the example phrases for a task type: per-type fields,
// then the type's family, then generic.
func examplesFor(taskType string) examples {
	tt := strings.ToLower(strings.TrimSpace(taskType))
	ex := generic
	if f, ok := familyOf[tt]; ok {
		ex = merge(ex, families[f])
	}
	if o, ok := byType[tt]; ok {
		ex = merge(ex, o)
	}
	return ex
}

func merge(base, over examples) examples {
	pick := func(b, o string) string {
		if o != "" {
			return o
		}
		return b
	}
	return examples{
		goal:        pick(base.goal, over.goal),
		audience:    pick(base.audience, over.audience),
		scope:       pick(base.scope, over.scope),
		format:      pick(base.format, over.format),
		constraints: pick(base.constraints, over.constraints),
		length:      pick(base.length, over.length),
		context:     pick(base.context, over.context),
	}
}

// suggestion is the sentence for a missing (partial=false) or weak
// (partial=true) criterion.
func suggestion(name string, partial bool, ex examples) string {
	var s, e string
	switch name {
	case Goal:
		e = ex.goal
		s = "Start with what you want done, using an action verb, for example: '%s'."
		if partial {
			s = "State the action you want with a specific verb instead of a general request, for example: '%s'."
		}
	case Audience:
		e = ex.audience
		s = "Name your audience, for example: '%s'."
		if partial {
			s = "Say exactly who will read or use the result, for example: '%s'."
		}
	case Scope:
		e = ex.scope
		s = "Define the scope (how many items, which named subjects, what time frame or market), for example: '%s'."
		if partial {
			s = "Narrow the scope further with counts, names, a time frame or what is out of scope, for example: '%s'."
		}
	case Format:
		e = ex.format
		s = "Specify the format of the deliverable, for example: '%s'."
		if partial {
			s = "Describe the structure of the deliverable as well as its type, for example: '%s'."
		}
	case Constraints:
		e = ex.constraints
		s = "Add constraints such as a deadline, budget, tone or things to avoid, for example: '%s'."
		if partial {
			s = "Add a second kind of constraint (deadline, budget, tone or a must/avoid rule), for example: '%s'."
		}
	case Length:
		e = ex.length
		s = "Give an explicit length, for example: '%s'."
		if partial {
			s = "Replace a vague length word with a number, for example: '%s'."
		}
	case Context:
		e = ex.context
		s = "Add background about your situation, for example: '%s'."
		if partial {
			s = "Say more about your situation and the data available, for example: '%s'."
		}
	}
	return strings.Replace(s, "%s", e, 1)
}
