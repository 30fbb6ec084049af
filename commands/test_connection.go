package commands

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"svc/domain/connection"
	"svc/eventstore"
	"svc/eventstore/event"
)

// TestConnection checks a connection (spec A, POST
// /api/rigor/connections/{id}/test): its host's every address against the
// SSRF rules, then the server's MCP initialize. The outcome is recorded.
type TestConnection struct {
	OrgID        string
	WorkspaceID  string
	Actor        string
	ConnectionID string
}

// ConnectionTested is the outcome of TestConnection: OK (the connection
// is active) or the failure (its status is error).
type ConnectionTested struct {
	ConnectionID string
	Outcome      connection.Outcome
	Position     event.Position
}

// TestConnectionHandler handles TestConnection.
type TestConnectionHandler struct {
	repos   *Repositories
	opener  Opener
	servers ContextServers
}

// NewTestConnectionHandler returns a handler reaching servers through
// servers, with credentials opened by opener.
func NewTestConnectionHandler(repos *Repositories, opener Opener, servers ContextServers) TestConnectionHandler {
	return TestConnectionHandler{repos: must(repos), opener: opener, servers: servers}
}

// maxTestError bounds the failure message recorded and answered.
const maxTestError = 400

// Handle tests outside any transaction, then appends
// ContextConnectionTested or ContextConnectionTestFailed at the gateway's
// version (connection.ErrNotFound for a connection the caller does not
// see, or a revoked one).
func (h TestConnectionHandler) Handle(ctx context.Context, cmd TestConnection) (ConnectionTested, error) {
	if h.servers == nil {
		return ConnectionTested{}, fmt.Errorf("test connection: %w", ErrNoGateway)
	}
	g, err := h.repos.Gateways.Get(ctx, cmd.OrgID)
	if err != nil {
		return ConnectionTested{}, fmt.Errorf("test connection: %w", err)
	}
	s, err := g.Get(cmd.ConnectionID, cmd.WorkspaceID)
	if err == nil && s.Status == connection.StatusRevoked {
		err = connection.ErrNotFound
	}
	if err != nil {
		return ConnectionTested{}, fmt.Errorf("test connection: %w", err)
	}
	out, err := h.probe(ctx, s)
	if err != nil {
		return ConnectionTested{}, fmt.Errorf("test connection: %w", err)
	}
	pos, err := h.repos.Store.Run(ctx, eventstore.TxOptions{Metadata: event.Metadata{OrgID: cmd.OrgID, Actor: cmd.Actor}}, func(tx *eventstore.Tx) error {
		g, err := h.repos.Gateways.Load(tx, cmd.OrgID)
		if err != nil {
			return err
		}
		d, err := g.RecordTest(s.ID, cmd.WorkspaceID, out)
		if err != nil {
			return err
		}
		_, err = h.repos.Gateways.Save(tx, cmd.OrgID, g, d)
		return err
	})
	if err != nil {
		return ConnectionTested{}, fmt.Errorf("test connection: %w", err)
	}
	return ConnectionTested{ConnectionID: s.ID, Outcome: out, Position: pos}, nil
}

// probe resolves s's host, checking every address, applies the SSRF
// rules of its URL, then initializes; an error is the service's own failure, not the
// server's.
func (h TestConnectionHandler) probe(ctx context.Context, s connection.Server) (connection.Outcome, error) {
	fail := func(err error, what string) connection.Outcome {
		o := connection.Outcome{Reason: connection.ReasonUnreachable, Error: what + ": " + clean(err)}
		if h.servers.Blocked(err) {
			o.Reason, o.Error = connection.ReasonBlocked, "Refused by the SSRF rules: "+clean(err)+
				". Connections reach public addresses only: no private, loopback, link-local, metadata, CGNAT or reserved address."
		}
		if len(o.Error) > maxTestError {
			o.Error = o.Error[:maxTestError]
		}
		return o
	}
	u, err := url.Parse(s.ServerURL)
	if err != nil {
		return fail(err, "The server URL does not parse"), nil
	}
	addrs, err := h.servers.Resolve(ctx, u.Hostname())
	if err != nil {
		return fail(err, "The host "+u.Hostname()+" could not be resolved"), nil
	}
	out := connection.Outcome{ResolvedIPs: make([]string, 0, len(addrs))}
	for _, a := range addrs {
		out.ResolvedIPs = append(out.ResolvedIPs, a.String())
	}
	// the rules of its creation again: the configuration may have changed
	if err := h.servers.CheckURL(s.ServerURL); err != nil {
		f := fail(err, "The server URL is refused")
		f.ResolvedIPs = out.ResolvedIPs
		return f, nil
	}
	access, err := accessOf(ctx, h.repos.Store.Pool(), h.opener, s)
	if err != nil {
		return connection.Outcome{}, err
	}
	caps, err := h.servers.Initialize(ctx, access)
	if err != nil {
		f := fail(err, "The server did not answer MCP initialize")
		f.ResolvedIPs = out.ResolvedIPs
		return f, nil
	}
	out.OK, out.Capabilities = true, caps
	return out, nil
}

// clean is err's message without the adapters' package prefixes.
func clean(err error) string {
	return strings.ReplaceAll(strings.ReplaceAll(err.Error(), "outbound: ", ""), "mcpctx: ", "")
}
