package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/connection"
	"svc/domain/workspace"
	"svc/projections"
)

// The connection routes (spec A, Connection endpoints): free, not rate
// limited, each 501 feature_not_enabled while the gateway is off
// (Config.ConnectionsDisabled, SVC_CONNECTIONS=off).
func (s *Server) connectionRoutes() {
	s.rigor.Handle("/connections", s.gateway(apikey.Viewer, s.listConnections)).Methods(http.MethodGet).Name("rigor.connections")
	s.rigor.Handle("/connections", s.gateway(apikey.Admin, s.createConnection)).Methods(http.MethodPost).Name("rigor.connections.create")
	s.rigor.Handle("/connections/{connection_id}", s.gateway(apikey.Admin, s.patchConnection)).Methods(http.MethodPatch).Name("rigor.connections.update")
	s.rigor.Handle("/connections/{connection_id}/test", s.gateway(apikey.Member, s.testConnection)).Methods(http.MethodPost).Name("rigor.connections.test")
	s.rigor.Handle("/connections/{connection_id}", s.gateway(apikey.Admin, s.deleteConnection)).Methods(http.MethodDelete).Name("rigor.connections.delete")
}

// gateway is a connection route: a key of at least floor, no rate limit,
// and 501 while the connection gateway is off.
func (s *Server) gateway(floor Role, h handlerFunc) http.Handler {
	return s.authenticated(authOptions{floor: floor}, func(w http.ResponseWriter, r *http.Request) error {
		if s.cfg.ConnectionsDisabled {
			return newError(http.StatusNotImplemented, "feature_not_enabled", "The connection gateway is disabled on this server.").
				withFix("An operator turns it on by unsetting SVC_CONNECTIONS (it is off with SVC_CONNECTIONS=off).")
		}
		return h(w, r)
	})
}

// connectionID is the route's id, a "conn_" prefix (the create answer's
// form in spec A) dropped.
func connectionID(r *http.Request) string {
	return strings.TrimPrefix(mux.Vars(r)["connection_id"], "conn_")
}

// connectionError maps the connection rules' refusals.
func connectionError(err error, id string) error {
	var (
		fe  *connection.FieldError
		dup *connection.DuplicateError
	)
	switch {
	case errors.As(err, &fe) && fe.Missing:
		return errMissingField(fe.Field)
	case errors.As(err, &fe):
		return errInvalidField(fe.Field, fe.Reason+".")
	case errors.Is(err, commands.ErrConnectionURL):
		return errInvalidField("server_url", "refused by the SSRF rules: "+strings.ReplaceAll(err.Error(), "outbound: ", "")+".").
			withFix("Use a public https URL: no private, loopback, link-local or metadata address, nor an internal host name.")
	case errors.Is(err, workspace.ErrNotFound), errors.Is(err, workspace.ErrArchived):
		return errInvalidField("workspace_id", "not an open workspace of your organization.")
	case errors.Is(err, commands.ErrNotAuthorized):
		return errMissingField("auth_credential").
			withFix("Authorize the provider first (POST /api/auth/mcp/initiate), or send auth_credential {access_token}.")
	case errors.Is(err, connection.ErrLimit):
		return newError(http.StatusConflict, "connection_limit_exceeded", "Your organization has "+strconv.Itoa(connection.MaxPerOrg)+
			" connections, the most it may have.").withFix("Delete one you no longer use.").withDetail("limit", connection.MaxPerOrg)
	case errors.As(err, &dup) && errors.Is(err, connection.ErrDuplicate):
		e := newError(http.StatusConflict, "duplicate_connection", "This scope already has a connection to that server.").
			withDetail("existing_id", dup.ExistingID)
		e.ExistingID = dup.ExistingID
		return e
	case errors.As(err, &dup):
		e := newError(http.StatusConflict, "display_name_taken", "A connection visible beside this one has that display_name.").
			withDetail("existing_id", dup.ExistingID).withDetail("field", "display_name")
		e.ExistingID = dup.ExistingID
		return e
	case errors.Is(err, connection.ErrDisplayNameLocked):
		return errInvalidField("display_name", "it cannot change after the connection's first tool call.")
	case errors.Is(err, connection.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", "No connection "+strconv.Quote(id)+" visible to this key.")
	}
	return err
}

// listConnections is GET /api/rigor/connections: the caller's visible
// connections and the registry's providers. Should the read fail, the
// answer is 500 with no connection, the error and the static lists.
func (s *Server) listConnections(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, _ := principalOf(ctx)
	rows, err := s.queries.Connections(ctx, p.OrgID, p.WorkspaceID)
	if err != nil {
		s.log.ErrorContext(ctx, "list connections", "error", err.Error(), "request_id", requestID(ctx))
		available, soon := providerLists(nil)
		writeJSON(w, http.StatusInternalServerError, connectionsFailure{Connections: []connectionBody{}, AvailableProviders: available,
			ComingSoonProviders: soon, Error: errorEnvelope{Code: errInternal.Code, Message: errInternal.Message, RequestID: requestID(ctx)}})
		return nil
	}
	out := make([]connectionBody, 0, len(rows))
	for _, c := range rows {
		out = append(out, connectionOut(c))
	}
	available, soon := providerLists(rows)
	writeJSON(w, http.StatusOK, connectionsResponse{Connections: out, AvailableProviders: available, ComingSoonProviders: soon})
	return nil
}

// createConnection is POST /api/rigor/connections: 201, the connection
// (pending until tested).
func (s *Server) createConnection(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var body connectionCreateBody
	if err := decodeBody(w, r, &body, false); err != nil {
		return err
	}
	if body.DisplayName != nil && *body.DisplayName == "" {
		return errInvalidField("display_name", "1-32 characters of a-z, 0-9, _ and -.")
	}
	spec := connection.Spec{DisplayName: deref(body.DisplayName), Label: deref(body.Label), Scope: connection.Scope(deref(body.Scope)),
		WorkspaceID: deref(body.WorkspaceID), ServerURL: deref(body.ServerURL), Transport: deref(body.Transport),
		AuthType: connection.AuthType(deref(body.AuthType)), Provider: deref(body.Provider)}
	p, _ := principalOf(ctx)
	res, err := s.commands.CreateConnection.Handle(ctx, commands.CreateConnection{OrgID: p.OrgID, Actor: p.Actor(), Spec: spec,
		Credential: body.AuthCredential.credential()})
	if err != nil {
		return connectionError(err, "")
	}
	c, err := s.queries.Connection(ctx, p.OrgID, spec.WorkspaceID, res.ConnectionID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, connectionCreatedResponse{Connection: createdConnection{ID: c.ID, DisplayName: c.DisplayName,
		Label: c.Label, Scope: c.Scope, WorkspaceID: optional(c.WorkspaceID), ServerURL: c.ServerURL, Transport: c.Transport,
		AuthType: c.AuthType, Status: c.Status, CreatedAt: c.CreatedAt.UTC()}})
	return nil
}

// patchConnection is PATCH /api/rigor/connections/{id}: the updated
// connection, or requires_reauth when read_write needs a new OAuth
// authorization (nothing is changed then).
func (s *Server) patchConnection(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var body connectionPatchBody
	if err := decodeBody(w, r, &body, false); err != nil {
		return err
	}
	c := connection.Change{DisplayName: body.DisplayName, Label: body.Label, Credential: body.AuthCredential.credential()}
	if body.PermissionMode != nil {
		m := connection.PermissionMode(*body.PermissionMode)
		c.Mode = &m
	}
	p, _ := principalOf(ctx)
	id := connectionID(r)
	_, err := s.commands.UpdateConnection.Handle(ctx, commands.UpdateConnection{OrgID: p.OrgID, WorkspaceID: p.WorkspaceID, Actor: p.Actor(),
		ConnectionID: id, Change: c})
	var reauth *connection.ReauthError
	if errors.As(err, &reauth) {
		writeJSON(w, http.StatusOK, reauthResponse{RequiresReauth: true, ReauthProvider: reauth.Provider,
			Message: "The organization's OAuth authorization of " + reauth.Provider + " is read only. Authorize it again with " +
				"POST /api/auth/mcp/initiate {provider: " + strconv.Quote(reauth.Provider) + ", permission_mode: \"read_write\"}, then repeat this change."})
		return nil
	}
	if err != nil {
		return connectionError(err, id)
	}
	row, err := s.queries.Connection(ctx, p.OrgID, p.WorkspaceID, id)
	if err != nil {
		return connectionError(connection.ErrNotFound, id)
	}
	writeJSON(w, http.StatusOK, connectionOut(row))
	return nil
}

// testConnection is POST /api/rigor/connections/{id}/test (no body): 200
// when the connection is active, else 400 {error: <string>} and its
// status is error.
func (s *Server) testConnection(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if err := decodeBody(w, r, &struct{}{}, true); err != nil {
		return err
	}
	p, _ := principalOf(ctx)
	id := connectionID(r)
	res, err := s.commands.TestConnection.Handle(ctx, commands.TestConnection{OrgID: p.OrgID, WorkspaceID: p.WorkspaceID, Actor: p.Actor(), ConnectionID: id})
	if err != nil {
		return connectionError(err, id)
	}
	o := res.Outcome
	if !o.OK {
		writeJSON(w, http.StatusBadRequest, connectionTestFailure{Error: o.Error, Code: o.Reason, Status: connection.StatusError,
			ConnectionID: res.ConnectionID, ResolvedIPs: o.ResolvedIPs, RequestID: requestID(ctx)})
		return nil
	}
	server := o.Capabilities.Server.Name
	if server == "" {
		server = "the server"
	}
	msg := "Connected: every address of the host is public and " + server + " answered MCP initialize"
	if o.Capabilities.Resources {
		msg += "; only resources/list and resources/read will be sent to it."
	} else {
		msg += ", but it offers no resources: there is nothing the gateway will read."
	}
	writeJSON(w, http.StatusOK, connectionTestResponse{Status: connection.StatusActive, ConnectionID: res.ConnectionID,
		ResolvedIPs: o.ResolvedIPs, Message: msg})
	return nil
}

// deleteConnection is DELETE /api/rigor/connections/{id}: revoked, its
// credential cleared, its record kept.
func (s *Server) deleteConnection(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if err := decodeBody(w, r, &struct{}{}, true); err != nil {
		return err
	}
	p, _ := principalOf(ctx)
	id := connectionID(r)
	if _, err := s.commands.DeleteConnection.Handle(ctx, commands.DeleteConnection{OrgID: p.OrgID, WorkspaceID: p.WorkspaceID,
		Actor: p.Actor(), ConnectionID: id}); err != nil {
		return connectionError(err, id)
	}
	writeJSON(w, http.StatusOK, connectionDeletedResponse{Connection: revokedConnection{ID: id, Status: connection.StatusRevoked},
		Message: "The connection is revoked and its credential deleted; its record is kept."})
	return nil
}

// providerLists are the registry's available providers without those the
// caller's live connections use (a self-hosted server may be added again
// and again), and its providers coming soon.
func providerLists(rows []projections.ConnectionRow) ([]availableProvider, []comingSoonProvider) {
	used := map[string]bool{}
	for _, c := range rows {
		if c.Status != connection.StatusRevoked && c.Provider != connection.SelfHosted {
			used[c.Provider] = true
		}
	}
	available, soon := []availableProvider{}, []comingSoonProvider{}
	for _, p := range connection.Providers() {
		switch {
		case p.Status == connection.ProviderComingSoon:
			soon = append(soon, comingSoonProvider{ID: p.ID, Name: p.Name, Description: p.Description, Icon: p.Icon, Tier: p.Tier, Category: p.Category})
		case !used[p.ID]:
			available = append(available, availableProvider{ID: p.ID, Name: p.Name, Description: p.Description, Icon: p.Icon, Tier: p.Tier,
				AuthType: string(p.AuthType), Category: p.Category})
		}
	}
	return available, soon
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// optional is s, or nil for "".
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
