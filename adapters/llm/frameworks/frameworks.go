// Package frameworks is what the LLM providers know of the frameworks a
// plan step applies: for every framework of the catalogue (by display name,
// alias or a name with a parenthesised qualifier), for the steps the planner
// adds itself (the multi-perspective review, the synthesis) and for an
// unknown name (by its catalogue domain, given or inferred), the section
// headings a step writes, its kind and its purpose. The prompt builder asks
// for these headings, the offline writer writes them, and the fake API of
// the tests (test/fakellm) answers them.
package frameworks

import (
	"strings"

	"svc/adapters/llm"
	"svc/domain/catalog"
	"svc/domain/planning"
)

// Spec is what the writer knows of a framework.
type Spec struct {
	Domain   string   // catalogue domain: strategy, product, research, ...
	Kind     string   // content, research or process
	Purpose  string   // one sentence: what the framework does
	Sections []string // the headings a step of it writes
}

// frameworkTable gives every framework of the catalogue its domain, kind,
// purpose and the section headings a step of it writes, read from the
// catalogue itself so the two cannot drift.
var frameworkTable = func() map[string]Spec {
	fws := catalog.Default().Frameworks()
	m := make(map[string]Spec, len(fws))
	for _, f := range fws {
		m[f.Name] = Spec{Domain: f.Domain, Kind: f.Kind, Purpose: f.Description, Sections: f.Sections}
	}
	return m
}()

// Names of the steps the planner adds itself.
const (
	reviewStepName    = planning.ReviewName
	synthesisStepName = planning.SynthesisName
)

// frameworkAliases maps common short or alternative names (folded) to the
// table's display names.
var frameworkAliases = map[string]string{
	"swot":                         "SWOT Analysis",
	"pestle":                       "PESTLE Analysis",
	"pestel":                       "PESTLE Analysis",
	"pestel analysis":              "PESTLE Analysis",
	"pest analysis":                "PESTLE Analysis",
	"five forces":                  "Porter's Five Forces",
	"porter five forces":           "Porter's Five Forces",
	"porters five forces":          "Porter's Five Forces",
	"okr":                          "OKR Framework",
	"okrs":                         "OKR Framework",
	"objectives and key results":   "OKR Framework",
	"rice":                         "RICE Prioritization",
	"rice scoring":                 "RICE Prioritization",
	"rice prioritisation":          "RICE Prioritization",
	"ice":                          "ICE Scoring",
	"moscow":                       "MoSCoW Prioritization",
	"moscow prioritisation":        "MoSCoW Prioritization",
	"5 whys":                       "Five Whys",
	"root cause (5 whys)":          "Five Whys",
	"root cause analysis":          "Five Whys",
	"root cause analysis (5 whys)": "Five Whys",
	"ishikawa diagram":             "Fishbone Diagram",
	"user personas":                "Persona Synthesis",
	"personas":                     "Persona Synthesis",
	"stakeholder mapping":          "Stakeholder Map",
	"stakeholder analysis":         "Stakeholder Map",
	"raci":                         "RACI Matrix",
	"fmea":                         "Failure Mode and Effects Analysis",
	"dpia":                         "Data Protection Impact Assessment",
	"jtbd":                         "Jobs To Be Done",
	"tam sam som":                  "Total Addressable Market Sizing",
	"market sizing":                "Total Addressable Market Sizing",
	"dcf":                          "Discounted Cash Flow",
	"adr":                          "Architecture Decision Record",
	"stride":                       "STRIDE Threat Model",
	"owasp top 10":                 "OWASP Top 10 Review",
	"wbs":                          "Work Breakdown Structure",
	"pdca":                         "PDCA Cycle",
	"aarrr":                        "AARRR Funnel Analysis",
	"smart goals":                  "SMART Goals",
	"premortem":                    "Pre-Mortem",
	"pre mortem":                   "Pre-Mortem",
}

// Headings returns the section headings a step of framework writes: the
// table's headings for a known framework (display name, alias or a name
// with a parenthesised qualifier), the perspectives of a review step, the
// parts of a synthesis step, and otherwise the fallback headings of the
// domain inferred from the name. It never returns fewer than three.
func Headings(framework string) []string {
	return append([]string(nil), Lookup(framework, "").Sections...)
}

// Lookup finds or builds the spec of a step named name; domain (optional)
// guides the fallback for an unknown name.
func Lookup(name, domain string) Spec {
	name = strings.Join(strings.Fields(name), " ")
	if spec, ok := knownFramework(name); ok {
		return spec
	}
	if spec, ok := plannerStep(name); ok {
		return spec
	}
	base := strings.TrimSpace(StripQualifier(name))
	if base != name {
		if spec, ok := knownFramework(base); ok {
			return spec
		}
	}
	if !validDomain(domain) {
		domain = inferDomain(name)
	}
	spec := fallbackSpecs[domain]
	spec.Domain = domain
	if domain == "research" || strings.Contains(strings.ToLower(name), "research") {
		spec = fallbackSpecs["research"]
		spec.Domain = "research"
	}
	return spec
}

// ForStep is the spec of the step request r (KindStep): the spec of
// r.Framework, guided by r.FrameworkDomain, with r.Headings as its sections
// when given.
func ForStep(r llm.Request) Spec {
	spec := Lookup(r.Framework, r.FrameworkDomain)
	if hs := nonEmpty(r.Headings); len(hs) > 0 {
		spec.Sections = hs
	}
	return spec
}

// nonEmpty returns the trimmed non-empty strings of ss.
func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// knownFramework looks name up in the table, by display name, folded name
// or alias.
func knownFramework(name string) (Spec, bool) {
	if spec, ok := frameworkTable[name]; ok {
		return spec, true
	}
	folded := foldName(name)
	canonical, ok := frameworkAliases[folded]
	if !ok {
		canonical, ok = foldedTable[folded]
	}
	if !ok {
		return Spec{}, false
	}
	spec, ok := frameworkTable[canonical] // false for an alias of a framework the catalogue dropped
	return spec, ok
}

// foldedTable maps folded display names to display names.
var foldedTable = func() map[string]string {
	m := make(map[string]string, len(frameworkTable))
	for name := range frameworkTable {
		m[foldName(name)] = name
	}
	return m
}()

// foldName lower-cases name, drops apostrophes and turns hyphens into spaces.
func foldName(name string) string {
	return strings.Join(strings.Fields(strings.ToLower(folder.Replace(name))), " ")
}

var folder = strings.NewReplacer("'", "", "’", "", "-", " ", "_", " ")

// StripQualifier removes a trailing "(...)" qualifier from name:
// "Multi-Perspective Review (Full)" gives "Multi-Perspective Review".
func StripQualifier(name string) string {
	if i := strings.LastIndex(name, " ("); i > 0 && strings.HasSuffix(name, ")") {
		return name[:i]
	}
	return name
}

// qualifier returns the text of a trailing "(...)" qualifier of name.
func qualifier(name string) string {
	if i := strings.LastIndex(name, " ("); i > 0 && strings.HasSuffix(name, ")") {
		return strings.TrimSuffix(name[i+2:], ")")
	}
	return ""
}

// plannerStep builds the spec of the steps the planner adds: the
// multi-perspective review (its passes qualified Lightweight, Standard or
// Full) and a synthesis step.
func plannerStep(name string) (Spec, bool) {
	base := StripQualifier(name)
	switch {
	case strings.EqualFold(base, reviewStepName):
		perspectives := []string{"Customer Perspective", "Operational Perspective", "Risk Perspective"}
		switch strings.ToLower(qualifier(name)) {
		case "lightweight":
		case "full":
			perspectives = append(perspectives, "Financial Perspective", "Technical Perspective", "Compliance Perspective")
		default:
			perspectives = append(perspectives, "Financial Perspective")
		}
		return Spec{Domain: "process", Kind: "process",
			Purpose:  "Reviews the work so far from several independent perspectives and consolidates what must change.",
			Sections: append(perspectives, "Consolidated Findings")}, true
	case strings.EqualFold(base, synthesisStepName):
		return Spec{Domain: "process", Kind: "process",
			Purpose:  "Integrates the outputs of the earlier steps into findings, recommendations and next steps.",
			Sections: []string{"Integrated Findings", "Recommendations", "Next Steps"}}, true
	}
	return Spec{}, false
}
