package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"svc/domain/apikey"
	"svc/domain/connection"
	"svc/domain/credit"
	"svc/domain/folder"
	"svc/domain/invite"
	"svc/domain/org"
	"svc/domain/workspace"
	"svc/eventstore/event"
)

// Audit is the read model of the audit log: one row per security or admin
// event (keys, members, roles, invites, workspaces, the organization's tier
// and credit grants, MCP connections), with its actor, its resource and an
// allow-listed metadata object. A row's id is its event's id, and rows are
// ordered by the event's place in the log, so a rebuild equals the live
// model.
//
// Which events are audited, and what each copies, is the table auditRules
// and nothing else: auditing a new event type (policies, budgets, webhook
// configuration, deletions ...) is one rule there.
type Audit struct{}

// Name implements Projection.
func (Audit) Name() string { return "audit" }

// Tables implements Projection. audit_keys remembers each key's workspace,
// which ApiKeyRevoked does not carry.
func (Audit) Tables() []Table {
	return []Table{{
		Name: "audit_events",
		DDL: `id uuid PRIMARY KEY,
			org_id uuid NOT NULL,
			workspace_id uuid,
			log_tx bigint NOT NULL,
			log_pos bigint NOT NULL,
			action text NOT NULL,
			actor_type text NOT NULL,
			actor_id text NOT NULL,
			resource_type text NOT NULL,
			resource_id text NOT NULL,
			metadata jsonb NOT NULL,
			created_at timestamptz NOT NULL`,
		Indexes: []string{
			`CREATE INDEX {{table}}_workspace ON {{table}} (workspace_id, log_tx DESC, log_pos DESC)`,
			`CREATE INDEX {{table}}_org ON {{table}} (org_id, log_tx DESC, log_pos DESC) WHERE workspace_id IS NULL`,
		},
	}, {
		Name: "audit_keys",
		DDL: `key_id text PRIMARY KEY,
			workspace_id uuid NOT NULL`,
	}}
}

// auditEntry is what one event adds to the audit log, beside its rule's
// action and resource type.
type auditEntry struct {
	ResourceID string
	// OrgID is the organization whose log it is ("": the event's
	// Metadata.OrgID).
	OrgID string
	// WorkspaceID is the workspace whose log shows it; "" for an event of
	// the organization, shown in its default workspace's log (decision in
	// docs/decisions.md).
	WorkspaceID string
	// KeyID is the API key the event is about, if any: with a WorkspaceID
	// the log remembers the key's workspace, without one it takes the
	// workspace it remembered (ApiKeyRevoked does not name it).
	KeyID string
	// Metadata is copied into the row: only what a rule names here, never
	// a whole event, so no hash, token or password can reach the log.
	Metadata map[string]any
}

// auditRule maps one event type to its action, its resource type and the
// entry that event makes.
type auditRule struct {
	eventType, action, resourceType string
	entry                           func(e event.Event) (auditEntry, error)
}

// rule is the audit rule of the events whose data is D.
func rule[D event.Data](action, resourceType string, f func(d D, e event.Event) auditEntry) auditRule {
	var zero D
	return auditRule{eventType: zero.EventType(), action: action, resourceType: resourceType, entry: func(e event.Event) (auditEntry, error) {
		d, ok := e.Payload.(D)
		if !ok {
			return auditEntry{}, fmt.Errorf("audit: event %s (%s) has data %T", e.ID, e.Type, e.Payload)
		}
		return f(d, e), nil
	}}
}

// orgOfStream is the organization of an org-<id> stream.
func orgOfStream(e event.Event) string { return strings.TrimPrefix(e.StreamID, org.Stream("")) }

// auditRules is every audited event type and what its row holds. To audit
// a new event type (policies, budgets, webhook configuration, deletions
// ...), add one rule: its action (<resource>.<verb>), its resource type,
// and a function naming the resource, the workspace and, one by one, the
// metadata fields it copies.
//
// Not audited, on purpose: WorkspaceKeyAttached and WorkspaceKeyDetached
// (the same facts as ApiKeyCreated and ApiKeyRevoked), OrgWorkspaceAdded
// (a counter beside WorkspaceCreated), filing workflows into folders
// (work, not administration), a user's own sign-ins, sign-outs
// and email verification (a person's, not a workspace's), and the ledger's
// per-run accounting (charges, reservations, settlements, refunds).
var auditRules = []auditRule{
	rule("api_key.created", "api_key", func(d apikey.Created, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.KeyID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, KeyID: d.KeyID,
			Metadata: map[string]any{"label": d.Label, "key_prefix": d.Prefix, "role": d.Role}}
	}),
	rule("api_key.revoked", "api_key", func(d apikey.Revoked, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.KeyID, OrgID: d.OrgID, KeyID: d.KeyID, Metadata: map[string]any{}}
	}),
	rule("workspace.created", "workspace", func(d workspace.Created, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.WorkspaceID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID,
			Metadata: map[string]any{"name": d.Name, "slug": d.Slug, "is_default": d.IsDefault}}
	}),
	rule("workspace.renamed", "workspace", func(d workspace.Renamed, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.WorkspaceID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID,
			Metadata: map[string]any{"from": d.From, "to": d.Name}}
	}),
	rule("workspace.archived", "workspace", func(d workspace.Archived, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.WorkspaceID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: map[string]any{}}
	}),
	rule("workspace.restored", "workspace", func(d workspace.Restored, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.WorkspaceID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: map[string]any{}}
	}),
	rule("workspace.llm_policy_updated", "workspace", func(d workspace.LLMPolicySet, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.WorkspaceID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID,
			Metadata: map[string]any{"allowed_models": d.AllowedModels}} // null: the policy was removed
	}),
	rule("workspace.budget_updated", "workspace", func(d workspace.BudgetSet, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.WorkspaceID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID,
			Metadata: map[string]any{"from": d.From, "monthly_credit_budget": d.MonthlyCreditBudget}} // null: no limit
	}),
	rule("member.added", "member", func(d workspace.MemberAdded, _ event.Event) auditEntry {
		m := map[string]any{"email": d.Email, "name": d.Name, "role": d.Role, "via": d.Via}
		if d.InviteID != "" {
			m["invite_id"] = d.InviteID
		}
		return auditEntry{ResourceID: d.UserID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: m}
	}),
	rule("member.role_changed", "member", func(d workspace.MemberRoleChanged, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.UserID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: map[string]any{"from": d.From, "to": d.To}}
	}),
	rule("member.removed", "member", func(d workspace.MemberRemoved, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.UserID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: map[string]any{}}
	}),
	rule("invite.created", "invite", func(d invite.Created, _ event.Event) auditEntry {
		m := map[string]any{"kind": d.Kind, "role": d.Role, "expires_at": d.ExpiresAt.UTC()}
		if d.Email != "" {
			m["email"] = d.Email
		}
		if d.MaxUses != nil {
			m["max_uses"] = *d.MaxUses
		}
		return auditEntry{ResourceID: d.InviteID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: m}
	}),
	rule("invite.accepted", "invite", func(d invite.Accepted, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.InviteID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: map[string]any{"user_id": d.UserID}}
	}),
	rule("invite.revoked", "invite", func(d invite.Revoked, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.InviteID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: map[string]any{}}
	}),
	rule("organization.created", "organization", func(d org.Created, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.OrgID, OrgID: d.OrgID, Metadata: map[string]any{"name": d.Name, "tier": d.Tier}}
	}),
	rule("organization.email_verified", "organization", func(_ org.EmailVerified, e event.Event) auditEntry {
		return auditEntry{ResourceID: orgOfStream(e), OrgID: orgOfStream(e), Metadata: map[string]any{}}
	}),
	rule("organization.tier_changed", "organization", func(d org.TierChanged, e event.Event) auditEntry {
		return auditEntry{ResourceID: orgOfStream(e), OrgID: orgOfStream(e),
			Metadata: map[string]any{"from": d.From, "to": d.To, "source": d.Source}}
	}),
	rule("credits.granted", "organization", func(d credit.Granted, _ event.Event) auditEntry {
		m := map[string]any{"amount": d.Amount, "reason": d.Reason}
		if d.Note != "" {
			m["note"] = d.Note
		}
		return auditEntry{ResourceID: d.OrgID, OrgID: d.OrgID, Metadata: m}
	}),
	rule("folder.created", "folder", func(d folder.Created, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.FolderID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: map[string]any{"name": d.Name}}
	}),
	rule("folder.renamed", "folder", func(d folder.Renamed, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.FolderID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: map[string]any{"from": d.From, "to": d.Name}}
	}),
	rule("folder.deleted", "folder", func(d folder.Deleted, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.FolderID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: map[string]any{"name": d.Name}}
	}),
	rule("mcp_connection.authorized", "mcp_connection", func(d connection.Authorized, _ event.Event) auditEntry {
		m := map[string]any{"provider": d.Provider, "permission_mode": d.PermissionMode, "scopes": append([]string{}, d.Scopes...)}
		if d.ExpiresAt != nil {
			m["expires_at"] = d.ExpiresAt.UTC()
		}
		return auditEntry{ResourceID: d.Provider, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: m}
	}),
	// context-server connections: an org-scoped one in the default
	// workspace's log; tests are operations, not administration
	rule("connection.created", "connection", func(d connection.Created, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.ConnectionID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: map[string]any{
			"display_name": d.DisplayName, "scope": d.Scope, "server_url": d.ServerURL, "provider": d.Provider, "auth_type": d.AuthType}}
	}),
	rule("connection.updated", "connection", func(d connection.Updated, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.ConnectionID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: map[string]any{
			"display_name": d.DisplayName, "label": d.Label, "permission_mode": d.PermissionMode, "credential_replaced": d.CredentialReplaced}}
	}),
	rule("connection.revoked", "connection", func(d connection.Revoked, _ event.Event) auditEntry {
		return auditEntry{ResourceID: d.ConnectionID, OrgID: d.OrgID, WorkspaceID: d.WorkspaceID, Metadata: map[string]any{}}
	}),
}

// auditByType indexes auditRules.
var auditByType = func() map[string]auditRule {
	m := make(map[string]auditRule, len(auditRules))
	for _, r := range auditRules {
		if _, dup := m[r.eventType]; dup {
			panic("projections: two audit rules for " + r.eventType)
		}
		m[r.eventType] = r
	}
	return m
}()

// AuditActions lists the actions of the audit log, in the order of the
// rules (the action filter checks them).
func AuditActions() []string {
	out := make([]string, 0, len(auditRules))
	for _, r := range auditRules {
		out = append(out, r.action)
	}
	return out
}

// AuditResourceTypes lists the resource types of the audit log, once each
// (the resource_type filter checks them).
func AuditResourceTypes() []string {
	var out []string
	for _, r := range auditRules {
		if !slices.Contains(out, r.resourceType) {
			out = append(out, r.resourceType)
		}
	}
	return out
}

// EventTypes implements Projection.
func (Audit) EventTypes() []string {
	out := make([]string, len(auditRules))
	for i, r := range auditRules {
		out[i] = r.eventType
	}
	return out
}

// Actor is who did an audited thing: type "user" or "api_key" with its id,
// or "system" with the name the log gives it ("operator" for the operator
// commands, "system" for the service's own jobs and when none is named).
type Actor struct {
	Type string
	ID   string
}

// ParseActor reads Metadata.Actor ("user:<id>", "key:<id>", "operator" ...).
func ParseActor(s string) Actor {
	switch {
	case strings.HasPrefix(s, "user:"):
		return Actor{Type: "user", ID: strings.TrimPrefix(s, "user:")}
	case strings.HasPrefix(s, "key:"):
		return Actor{Type: "api_key", ID: strings.TrimPrefix(s, "key:")}
	case s == "":
		return Actor{Type: "system", ID: "system"}
	}
	return Actor{Type: "system", ID: s}
}

// Apply implements Projection.
func (Audit) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	table, keys := t.Of("audit_events"), t.Of("audit_keys")
	b := &pgx.Batch{}
	for _, e := range events {
		r, ok := auditByType[e.Type]
		if !ok {
			continue
		}
		en, err := r.entry(e)
		if err != nil {
			return err
		}
		if en.OrgID == "" {
			en.OrgID = e.Metadata.OrgID
		}
		if uuid.Validate(en.OrgID) != nil {
			continue // no organization's log to show it in
		}
		var ws, key *string
		if uuid.Validate(en.WorkspaceID) == nil {
			ws = &en.WorkspaceID
		} else if en.KeyID != "" {
			key = &en.KeyID
		}
		if ws != nil && en.KeyID != "" {
			b.Queue(`INSERT INTO `+keys+` (key_id, workspace_id) VALUES ($1, $2) ON CONFLICT (key_id) DO NOTHING`, en.KeyID, *ws)
		}
		meta, err := json.Marshal(en.Metadata)
		if err != nil {
			return fmt.Errorf("audit: metadata of %s: %w", e.ID, err)
		}
		a := ParseActor(e.Metadata.Actor)
		b.Queue(`INSERT INTO `+table+` (id, org_id, workspace_id, log_tx, log_pos, action, actor_type, actor_id, resource_type, resource_id, metadata, created_at)
			VALUES ($1, $2, coalesce($3::uuid, (SELECT workspace_id FROM `+keys+` WHERE key_id = $4::text)), $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			e.ID, en.OrgID, ws, key, int64(e.Position.TransactionID), e.Position.Global, r.action, a.Type, a.ID,
			r.resourceType, en.ResourceID, string(meta), e.RecordedAt)
	}
	return sendBatch(ctx, tx, b)
}
