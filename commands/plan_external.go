package commands

import (
	"context"

	"svc/domain/connection"
	"svc/domain/planning"
	"svc/domain/workflow"
)

// ResourceReader reads the content of context servers' resources (MCP
// resources/read, nothing else): the files a plan's context names and a
// connection lists (planning.ResourceReads). access[i] says how to reach
// reads[i]'s server. A ConnectionChecker that implements it is used
// (mcpctx.Checker); without one no content is read.
type ResourceReader interface {
	ReadResources(ctx context.Context, reads []planning.ResourceRead, access []connection.Access) []planning.External
}

// readExternal reads the content of the files req's context names, from
// the connections that listed them (checked already); stored are the
// access of the stored connections at the end of req.Connections.
func (h PlanWorkflowHandler) readExternal(ctx context.Context, req planning.Request, stored []connection.Access) []planning.External {
	rr, ok := h.checker.(ResourceReader)
	reads := planning.ResourceReads(req)
	if !ok || len(reads) == 0 {
		return nil
	}
	first := len(req.Connections) - len(stored) // the first stored connection
	access := make([]connection.Access, len(reads))
	for i, r := range reads {
		if r.Conn >= first && first >= 0 {
			access[i] = stored[r.Conn-first]
		} else {
			access[i] = connection.Access{ServerURL: req.Connections[r.Conn].ServerURL}
		}
	}
	return rr.ReadResources(ctx, reads, access)
}

// externalContent is what a plan read for its steps, as its event keeps it.
func externalContent(p planning.Plan) []workflow.ExternalContent {
	var out []workflow.ExternalContent
	for _, e := range p.External {
		out = append(out, workflow.ExternalContent{Server: e.Server, URI: e.URI, Text: e.Text, Truncated: e.Truncated, Stripped: e.Stripped})
	}
	return out
}
