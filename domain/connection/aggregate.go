package connection

import (
	"fmt"
	"slices"

	"svc/eventstore/event"
)

// GatewayStream is the stream of organization orgID's context-server
// connections: all of them on one stream, so that the limit and the
// duplicate rules decide against every connection of the organization at
// the stream's version, and concurrent creations cannot both pass.
func GatewayStream(orgID string) string { return "context-connections-" + orgID }

// Server is one context-server connection as the gateway folds it.
type Server struct {
	ID          string
	OrgID       string
	WorkspaceID string // "" at org scope
	Scope       Scope
	DisplayName string
	Label       string
	Provider    string
	ServerURL   string
	Transport   string
	AuthType    AuthType
	Mode        PermissionMode
	OAuthLinked bool
	Status      string
	// ToolCalled locks the display_name (ToolCalled's event).
	ToolCalled bool
}

// VisibleTo reports whether a key of workspace wsID sees s: org-scoped
// connections are visible to every workspace, workspace-scoped ones to
// theirs only.
func (s Server) VisibleTo(wsID string) bool {
	return s.Scope == ScopeOrg || s.WorkspaceID == wsID
}

// sharesNames reports whether s and a connection at scope sc of workspace
// wsID are visible together to some key: their display names must differ.
func (s Server) sharesNames(sc Scope, wsID string) bool {
	return s.Scope == ScopeOrg || sc == ScopeOrg || s.WorkspaceID == wsID
}

// Gateway is the aggregate of an organization's context-server
// connections, in the order they were created.
type Gateway struct {
	orgID   string
	servers []*Server
	version int64
}

// NewGateway is organization orgID's gateway with no events yet.
func NewGateway(orgID string) *Gateway { return &Gateway{orgID: orgID, version: event.NewStream} }

// Clone copies g (the repository's fold cache).
func (g *Gateway) Clone() *Gateway {
	c := &Gateway{orgID: g.orgID, version: g.version, servers: make([]*Server, len(g.servers))}
	for i, s := range g.servers {
		cp := *s
		c.servers[i] = &cp
	}
	return c
}

// Version is the version of the last event folded.
func (g *Gateway) Version() int64 { return g.version }

// OrgID is the owning organization.
func (g *Gateway) OrgID() string { return g.orgID }

// Live counts the connections that are not revoked (the limit's count).
func (g *Gateway) Live() int {
	n := 0
	for _, s := range g.servers {
		if s.Status != StatusRevoked {
			n++
		}
	}
	return n
}

// Visible lists the connections a key of workspace wsID sees, revoked
// ones included, oldest first.
func (g *Gateway) Visible(wsID string) []Server {
	var out []Server
	for _, s := range g.servers {
		if s.VisibleTo(wsID) {
			out = append(out, *s)
		}
	}
	return out
}

// Get is connection id as a key of workspace wsID sees it (revoked ones
// included); ErrNotFound when there is none.
func (g *Gateway) Get(id, wsID string) (Server, error) {
	s := g.find(id)
	if s == nil || !s.VisibleTo(wsID) {
		return Server{}, ErrNotFound
	}
	return *s, nil
}

func (g *Gateway) find(id string) *Server {
	for _, s := range g.servers {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// live is connection id when a key of wsID sees it and it is not revoked.
func (g *Gateway) live(id, wsID string) (*Server, error) {
	s := g.find(id)
	if s == nil || !s.VisibleTo(wsID) || s.Status == StatusRevoked {
		return nil, ErrNotFound
	}
	return s, nil
}

// Apply folds one event.
func (g *Gateway) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("connection gateway: %w", err)
	}
	switch d := d.(type) {
	case Created:
		g.servers = append(g.servers, &Server{ID: d.ConnectionID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Scope: d.Scope,
			DisplayName: d.DisplayName, Label: d.Label, Provider: d.Provider, ServerURL: d.ServerURL, Transport: d.Transport,
			AuthType: d.AuthType, Mode: d.PermissionMode, OAuthLinked: d.OAuthLinked, Status: StatusPending})
	case Updated:
		if s := g.find(d.ConnectionID); s != nil {
			s.DisplayName, s.Label, s.Mode, s.OAuthLinked = d.DisplayName, d.Label, d.PermissionMode, d.OAuthLinked
		}
	case Tested:
		g.setStatus(d.ConnectionID, StatusActive)
	case TestFailed:
		g.setStatus(d.ConnectionID, StatusError)
	case ToolCalled:
		if s := g.find(d.ConnectionID); s != nil {
			s.ToolCalled = true
		}
	case Revoked:
		g.setStatus(d.ConnectionID, StatusRevoked)
	}
	g.version = e.Version
	return nil
}

func (g *Gateway) setStatus(id, status string) {
	if s := g.find(id); s != nil && s.Status != StatusRevoked {
		s.Status = status
	}
}

// checkNames refuses display name name at scope sc of workspace wsID when
// a live connection other than self visible beside it holds it.
func (g *Gateway) checkNames(self, name string, sc Scope, wsID string) error {
	for _, s := range g.servers {
		if s.ID != self && s.Status != StatusRevoked && s.DisplayName == name && s.sharesNames(sc, wsID) {
			return &DuplicateError{ExistingID: s.ID, Err: ErrDisplayNameTaken}
		}
	}
	return nil
}

// Create decides connection id of spec s, created by actor: the limit of
// MaxPerOrg live connections, then one connection to a server per scope
// (an org-scoped one and one per workspace), then display names unique
// among the connections visible together. s must be checked (Spec.Check).
func (g *Gateway) Create(id, actor string, s Spec) (Created, error) {
	if g.Live() >= MaxPerOrg {
		return Created{}, ErrLimit
	}
	same := SameServer(s.ServerURL)
	for _, o := range g.servers {
		if o.Status != StatusRevoked && o.Scope == s.Scope && o.WorkspaceID == s.WorkspaceID && SameServer(o.ServerURL) == same {
			return Created{}, &DuplicateError{ExistingID: o.ID, Err: ErrDuplicate}
		}
	}
	if err := g.checkNames(id, s.DisplayName, s.Scope, s.WorkspaceID); err != nil {
		return Created{}, err
	}
	return Created{ConnectionID: id, OrgID: g.orgID, WorkspaceID: s.WorkspaceID, Scope: s.Scope, DisplayName: s.DisplayName,
		Label: s.Label, Provider: s.Provider, ServerURL: s.ServerURL, Transport: s.Transport, AuthType: s.AuthType,
		PermissionMode: s.Mode, OAuthLinked: s.AuthType == AuthOAuth && s.Credential.AccessToken == "", CreatedBy: actor}, nil
}

// Update decides change c of connection id, seen from workspace wsID, by
// actor. authorized is the mode of the organization's OAuth authorization
// of the connection's provider ("" when there is none): read_write on a
// connection that uses that authorization needs one of read_write
// (*ReauthError). A change that changes nothing gives no event.
func (g *Gateway) Update(id, wsID, actor string, c Change, authorized PermissionMode) (*Updated, error) {
	s, err := g.live(id, wsID)
	if err != nil {
		return nil, err
	}
	c, err = c.check(s.AuthType)
	if err != nil {
		return nil, err
	}
	next := Updated{ConnectionID: s.ID, OrgID: s.OrgID, WorkspaceID: s.WorkspaceID, DisplayName: s.DisplayName, Label: s.Label,
		PermissionMode: s.Mode, OAuthLinked: s.OAuthLinked, UpdatedBy: actor}
	if c.DisplayName != nil && *c.DisplayName != s.DisplayName {
		if s.ToolCalled {
			return nil, ErrDisplayNameLocked
		}
		if err := g.checkNames(s.ID, *c.DisplayName, s.Scope, s.WorkspaceID); err != nil {
			return nil, err
		}
		next.DisplayName = *c.DisplayName
	}
	if c.Label != nil {
		next.Label = *c.Label
	}
	if c.Mode != nil {
		next.PermissionMode = *c.Mode
	}
	if c.Credential != nil {
		next.CredentialReplaced = true
		if s.AuthType == AuthOAuth {
			next.OAuthLinked = c.Credential.AccessToken == ""
		}
	}
	if (c.Mode != nil || c.Credential != nil) && next.OAuthLinked && next.PermissionMode == ReadWrite && authorized != ReadWrite {
		return nil, &ReauthError{Provider: s.Provider, Mode: ReadWrite}
	}
	if !next.CredentialReplaced && next.DisplayName == s.DisplayName && next.Label == s.Label && next.PermissionMode == s.Mode {
		return nil, nil
	}
	return &next, nil
}

// Outcome is what a test of a connection found: OK with the server's
// capabilities, or the failure's Reason (ReasonBlocked, ReasonUnreachable)
// and message; ResolvedIPs are the host's addresses (when resolved).
type Outcome struct {
	OK           bool
	ResolvedIPs  []string
	Capabilities Capabilities
	Reason       string
	Error        string
}

// RecordTest decides the event of test outcome o of connection id, seen
// from workspace wsID: Tested (active) or TestFailed (error).
func (g *Gateway) RecordTest(id, wsID string, o Outcome) (event.Data, error) {
	s, err := g.live(id, wsID)
	if err != nil {
		return nil, err
	}
	ips := append([]string{}, o.ResolvedIPs...)
	if o.OK {
		caps := o.Capabilities
		caps.Operations = []string{}
		if caps.Resources {
			caps.Operations = slices.Clone(ReadOperations)
		}
		return Tested{ConnectionID: s.ID, OrgID: s.OrgID, WorkspaceID: s.WorkspaceID, ResolvedIPs: ips, Capabilities: caps}, nil
	}
	return TestFailed{ConnectionID: s.ID, OrgID: s.OrgID, WorkspaceID: s.WorkspaceID, ResolvedIPs: ips, Reason: o.Reason, Error: o.Error}, nil
}

// Revoke decides the revocation of connection id, seen from workspace
// wsID, by actor; nil when it is revoked already (a second delete
// changes nothing).
func (g *Gateway) Revoke(id, wsID, actor string) (*Revoked, error) {
	s := g.find(id)
	if s == nil || !s.VisibleTo(wsID) {
		return nil, ErrNotFound
	}
	if s.Status == StatusRevoked {
		return nil, nil
	}
	return &Revoked{ConnectionID: s.ID, OrgID: s.OrgID, WorkspaceID: s.WorkspaceID, RevokedBy: actor}, nil
}
