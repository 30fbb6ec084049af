package commands

import (
	"context"
	"slices"

	"svc/domain/connection"
	"svc/domain/planning"
)

// StoredConnectionChecker is a ConnectionChecker that reaches an
// organization's stored connections with their credentials and
// transports (mcpctx.Checker).
type StoredConnectionChecker interface {
	CheckStoredConnections(ctx context.Context, conns []planning.Connection, access []connection.Access)
}

// WithStoredConnections makes plans check, beside the connections their
// body names, the caller's active stored connections (org-scoped and its
// workspace's, POST /api/rigor/connections), their credentials opened by
// opener.
func WithStoredConnections(opener Opener) PlanOption {
	return func(h *PlanWorkflowHandler) { h.stored, h.opener = true, opener }
}

// storedConnections are the active connections the caller of cmd sees
// whose server the body does not name, as planning connections (labelled
// by display_name, with their provider's read capabilities), and how to
// reach each. A connection whose credential cannot be read is reported
// failed rather than checked without it.
func (h PlanWorkflowHandler) storedConnections(ctx context.Context, cmd PlanWorkflow) ([]planning.Connection, []connection.Access) {
	if !h.stored || cmd.OrgID == "" {
		return nil, nil
	}
	g, err := h.repos.Gateways.Get(ctx, cmd.OrgID)
	if err != nil {
		return nil, nil
	}
	named := map[string]bool{}
	for _, c := range cmd.Request.Connections {
		named[connection.SameServer(c.ServerURL)] = true
	}
	var conns []planning.Connection
	var access []connection.Access
	for _, s := range g.Visible(cmd.WorkspaceID) {
		if s.Status != connection.StatusActive || named[connection.SameServer(s.ServerURL)] {
			continue
		}
		caps := []string{"resources"}
		if p, ok := connection.ProviderByID(s.Provider); ok {
			caps = slices.Concat(caps, p.CapabilitiesRead)
		}
		c := planning.Connection{ID: s.ID, Label: s.DisplayName, ServerURL: s.ServerURL, Capabilities: caps}
		a, err := accessOf(ctx, h.repos.Store.Pool(), h.opener, s)
		if err != nil {
			c.State, c.Detail, c.ServerURL = planning.ConnFailed, "its stored credential could not be read", ""
		}
		conns, access = append(conns, c), append(access, a)
	}
	return conns, access
}

// checkStored checks stored connections with their access when the
// checker can, else as given.
func (h PlanWorkflowHandler) checkStored(ctx context.Context, conns []planning.Connection, access []connection.Access) {
	if h.checker == nil || len(conns) == 0 {
		return
	}
	if sc, ok := h.checker.(StoredConnectionChecker); ok {
		sc.CheckStoredConnections(ctx, conns, access)
		return
	}
	h.checker.CheckConnections(ctx, conns)
}
