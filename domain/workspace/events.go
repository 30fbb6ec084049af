package workspace

import (
	"svc/domain/apikey"
	"svc/eventstore/event"
)

// Event types of a workspace stream.
const (
	EventCreated           = "WorkspaceCreated"
	EventRenamed           = "WorkspaceRenamed"
	EventArchived          = "WorkspaceArchived"
	EventRestored          = "WorkspaceRestored"
	EventMemberAdded       = "WorkspaceMemberAdded"
	EventMemberRoleChanged = "WorkspaceMemberRoleChanged"
	EventMemberRemoved     = "WorkspaceMemberRemoved"
	EventKeyAttached       = "WorkspaceKeyAttached"
	EventKeyDetached       = "WorkspaceKeyDetached"
	EventBudgetSet         = "WorkspaceBudgetSet"
	// EventSlugReserved is the only event of a slug's reservation stream:
	// appending it to a new stream makes a slug belong to one workspace of
	// the organization.
	EventSlugReserved = "WorkspaceSlugReserved"
)

// Role is a member's role in a workspace.
type Role = apikey.Role

// Created is the data of WorkspaceCreated.
type Created struct {
	WorkspaceID string `json:"workspace_id"`
	OrgID       string `json:"org_id"`
	Name        string `json:"name"`
	Slug        string `json:"slug"`
	IsDefault   bool   `json:"is_default"`
}

// Renamed is the data of WorkspaceRenamed; the slug stays.
type Renamed struct {
	WorkspaceID string `json:"workspace_id"`
	OrgID       string `json:"org_id"`
	From        string `json:"from"`
	Name        string `json:"name"`
}

// Archived is the data of WorkspaceArchived.
type Archived struct {
	WorkspaceID string `json:"workspace_id"`
	OrgID       string `json:"org_id"`
}

// Restored is the data of WorkspaceRestored.
type Restored struct {
	WorkspaceID string `json:"workspace_id"`
	OrgID       string `json:"org_id"`
}

// MemberAdded is the data of WorkspaceMemberAdded: a user joined.
type MemberAdded struct {
	WorkspaceID string `json:"workspace_id"`
	OrgID       string `json:"org_id"`
	UserID      string `json:"user_id"`
	Email       string `json:"email"`
	Name        string `json:"name"`
	Role        Role   `json:"role"`
	// Via is how: "signup", "created", "direct" (added by email) or
	// "invite" (an invite's id in InviteID).
	Via      string `json:"via"`
	InviteID string `json:"invite_id,omitempty"`
}

// MemberRoleChanged is the data of WorkspaceMemberRoleChanged.
type MemberRoleChanged struct {
	WorkspaceID string `json:"workspace_id"`
	OrgID       string `json:"org_id"`
	UserID      string `json:"user_id"`
	From        Role   `json:"from"`
	To          Role   `json:"to"`
}

// MemberRemoved is the data of WorkspaceMemberRemoved.
type MemberRemoved struct {
	WorkspaceID string `json:"workspace_id"`
	OrgID       string `json:"org_id"`
	UserID      string `json:"user_id"`
}

// KeyAttached is the data of WorkspaceKeyAttached: an API key of the
// workspace was created (the key's own stream has ApiKeyCreated).
type KeyAttached struct {
	WorkspaceID string `json:"workspace_id"`
	OrgID       string `json:"org_id"`
	KeyID       string `json:"key_id"`
	Role        Role   `json:"role"`
}

// KeyDetached is the data of WorkspaceKeyDetached: the key was revoked.
type KeyDetached struct {
	WorkspaceID string `json:"workspace_id"`
	OrgID       string `json:"org_id"`
	KeyID       string `json:"key_id"`
}

// BudgetSet is the data of WorkspaceBudgetSet: the workspace's monthly
// credit budget (nil: no limit) replaces From (budget.go).
type BudgetSet struct {
	WorkspaceID         string `json:"workspace_id"`
	OrgID               string `json:"org_id"`
	MonthlyCreditBudget *int64 `json:"monthly_credit_budget"`
	From                *int64 `json:"from"`
}

// EventType implements event.Data.
func (BudgetSet) EventType() string { return EventBudgetSet }

// SlugReserved is the data of WorkspaceSlugReserved.
type SlugReserved struct {
	WorkspaceID string `json:"workspace_id"`
}

// EventType implements event.Data.
func (Created) EventType() string { return EventCreated }

// EventType implements event.Data.
func (Renamed) EventType() string { return EventRenamed }

// EventType implements event.Data.
func (Archived) EventType() string { return EventArchived }

// EventType implements event.Data.
func (Restored) EventType() string { return EventRestored }

// EventType implements event.Data.
func (MemberAdded) EventType() string { return EventMemberAdded }

// EventType implements event.Data.
func (MemberRoleChanged) EventType() string { return EventMemberRoleChanged }

// EventType implements event.Data.
func (MemberRemoved) EventType() string { return EventMemberRemoved }

// EventType implements event.Data.
func (KeyAttached) EventType() string { return EventKeyAttached }

// EventType implements event.Data.
func (KeyDetached) EventType() string { return EventKeyDetached }

// EventType implements event.Data.
func (SlugReserved) EventType() string { return EventSlugReserved }

// RegisterEvents registers the events of workspace and slug streams.
func RegisterEvents(r *event.Registry) {
	event.Register[Created](r)
	event.Register[Renamed](r)
	event.Register[Archived](r)
	event.Register[Restored](r)
	event.Register[MemberAdded](r)
	event.Register[MemberRoleChanged](r)
	event.Register[MemberRemoved](r)
	event.Register[KeyAttached](r)
	event.Register[KeyDetached](r)
	event.Register[BudgetSet](r)
	event.Register[SlugReserved](r)
	event.Register[LLMPolicySet](r) // llm_policy.go
}

var registry = event.NewRegistry(RegisterEvents)
