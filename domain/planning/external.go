package planning

import (
	"fmt"
	"strings"

	"svc/domain/injection"
)

// Bounds of the external content a plan reads: the files named in the
// context that a connection lists, at most MaxExternalFiles of them, each
// clipped to MaxExternalChars characters.
const (
	MaxExternalFiles = 4
	MaxExternalChars = 8000
)

// ResourceRead is a resource whose content a plan reads: a file named in
// the context, found among what connection Conn (an index in
// Request.Connections) listed.
type ResourceRead struct {
	Conn   int
	Server string // the connection's name (label, else id)
	Ref    string // the file as the context names it
	URI    string // the resource that matched it
}

// External is the content of a resource read for a plan. Runs give it to
// the steps' prompts as framed data, never as instructions
// (adapters/llm/prompt).
type External struct {
	Server, URI string
	Text        string
	// Truncated: the text was clipped to MaxExternalChars.
	Truncated bool
	// Stripped: lines flagged as prompt injection were removed (Text
	// holds injection.Placeholder instead).
	Stripped bool
}

// ResourceReads lists the resources to read for req: for each file the
// context names, in order, the first listed resource that matches it
// (FindFile), at most MaxExternalFiles.
func ResourceReads(req Request) []ResourceRead {
	var out []ResourceRead
	for _, ref := range ReferencedFiles(req.AdditionalContext) {
		for i, conn := range req.Connections {
			if !conn.Listed {
				continue
			}
			if r, ok := FindFile(ref, conn.Resources); ok {
				out = append(out, ResourceRead{Conn: i, Server: connectionName(conn), Ref: ref, URI: r.URI})
				break
			}
		}
		if len(out) == MaxExternalFiles {
			break
		}
	}
	return out
}

// externalContent scans the content read for the plan (req.External) for
// prompt injection: a flagged text gets a prompt_injection_suspected
// warning and loses its flagged lines (injection.Strip); a text that only
// quotes injection phrases (an article about them) is kept whole with an
// info line. It returns the content as runs use it.
func externalContent(plan *Plan, req Request) []External {
	if len(req.External) == 0 {
		return nil
	}
	out := make([]External, 0, len(req.External))
	var names []string
	for _, e := range req.External {
		where := e.URI + " (" + e.Server + ")"
		names = append(names, where)
		rep := injection.Scan(e.Text)
		switch {
		case rep.Flagged():
			e.Text, e.Stripped = injection.Strip(e.Text, rep), true
			plan.Warnings = append(plan.Warnings, Warning{Code: "prompt_injection_suspected",
				Message: fmt.Sprintf("The content of %s holds text that reads as instructions to the model (%s): suspected prompt injection. "+
					"Those lines were removed; the rest reaches the steps as quoted data, never as instructions.", where, strings.Join(rep.Rules(), ", ")),
				Suggestion: "Check the file on its server. If the removed lines are legitimate, paste the material in context.additional_context instead."})
		case rep.Severity == injection.Low:
			plan.Info = append(plan.Info, "The content of "+where+" quotes prompt-injection phrases (it reads as a text about them); it is kept whole, as quoted data.")
		}
		out = append(out, e)
	}
	plan.Info = append(plan.Info, "Read for the steps, as quoted data: "+strings.Join(names, ", ")+".")
	return out
}
