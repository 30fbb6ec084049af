// Package workspace is the workspace aggregate: its name and slug, its
// archive state, its members (users with roles) and its API keys. Every
// organization gets a default workspace when it is created.
package workspace

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"svc/domain/apikey"
	"svc/domain/org"
	"svc/eventstore/event"
)

// Domain errors.
var (
	ErrNotFound         = errors.New("workspace not found")
	ErrNameRequired     = errors.New("name is required")
	ErrNameTooLong      = errors.New("name longer than 100 characters")
	ErrTierRequired     = errors.New("workspaces need the team or enterprise tier")
	ErrWorkspaceLimit   = errors.New("workspace limit of the tier reached")
	ErrNotArchived      = errors.New("workspace is not archived")
	ErrArchived         = errors.New("workspace is archived")
	ErrDefault          = errors.New("the default workspace cannot be archived")
	ErrAlreadyMember    = errors.New("already a member")
	ErrMemberNotFound   = errors.New("member not found")
	ErrMemberLimit      = errors.New("member limit of the tier reached")
	ErrKeyLimit         = errors.New("api key limit of the tier reached")
	ErrCannotDemoteSelf = errors.New("you cannot lower your own role")
	ErrLastOwner        = errors.New("the last owner cannot be removed")
	ErrInvalidRole      = errors.New("role must be viewer, member or admin")
)

// Stream is the stream id of workspace id.
func Stream(id string) string { return "workspace-" + id }

// SlugStream is the reservation stream of slug in organization orgID.
func SlugStream(orgID, slug string) string { return "workspace-slug-" + orgID + "-" + slug }

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slug derives a URL slug from a workspace name.
func Slug(name string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(s) > 48 {
		s = strings.TrimRight(s[:48], "-")
	}
	if s == "" {
		return "workspace"
	}
	return s
}

// Candidates are the slugs tried, in order, for a workspace named name:
// its slug, then slug-2, slug-3 ... up to n of them.
func Candidates(name string, n int) []string {
	base := Slug(name)
	out := []string{base}
	for i := 2; i <= n; i++ {
		out = append(out, fmt.Sprintf("%s-%d", base, i))
	}
	return out
}

// Limit is what a tier allows.
type Limit struct {
	Workspaces int // per organization, archived ones included
	Members    int // users per workspace
	Keys       int // active API keys per workspace
}

// Limits are the tiers' limits (spec B gives no numbers; docs/decisions.md).
var Limits = map[org.Tier]Limit{
	org.Free:       {Workspaces: 1, Members: 3, Keys: 5},
	org.Pro:        {Workspaces: 1, Members: 10, Keys: 20},
	org.Team:       {Workspaces: 10, Members: 50, Keys: 100},
	org.Enterprise: {Workspaces: 100, Members: 1000, Keys: 1000},
}

// LimitOf is tier's limit (a free tier's for an unknown one).
func LimitOf(t org.Tier) Limit {
	if l, ok := Limits[t]; ok {
		return l
	}
	return Limits[org.Free]
}

// CanCreate decides whether an organization of tier with count workspaces
// may create one more.
func CanCreate(t org.Tier, count int) error {
	if t != org.Team && t != org.Enterprise {
		return ErrTierRequired
	}
	if count >= LimitOf(t).Workspaces {
		return ErrWorkspaceLimit
	}
	return nil
}

// ValidName trims name and checks it.
func ValidName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", ErrNameRequired
	case utf8.RuneCountInString(name) > 100:
		return "", ErrNameTooLong
	}
	return name, nil
}

// Member is a user's membership.
type Member struct {
	UserID string
	Role   Role
}

// Workspace is the aggregate.
type Workspace struct {
	id        string
	orgID     string
	name      string
	isDefault bool
	archived  bool
	members   map[string]Role // user id -> role
	keys      map[string]bool // active key ids
	budget    int64           // monthly credit budget, 0 for none (budget.go)
	llmPolicy []string        // allowed models, nil for no policy (llm_policy.go)
	version   int64
}

// New is a workspace with no events yet.
func New() *Workspace {
	return &Workspace{members: map[string]Role{}, keys: map[string]bool{}, version: event.NewStream}
}

// The default workspace every organization gets at its creation.
const (
	DefaultName = "Default"
	DefaultSlug = "default"
)

// CreateDefault decides organization orgID's default workspace id.
func CreateDefault(id, orgID string) Created {
	return Created{WorkspaceID: id, OrgID: orgID, Name: DefaultName, Slug: DefaultSlug, IsDefault: true}
}

// Create decides a new workspace.
func Create(id, orgID, name, slug string, isDefault bool) (Created, error) {
	name, err := ValidName(name)
	if err != nil {
		return Created{}, err
	}
	return Created{WorkspaceID: id, OrgID: orgID, Name: name, Slug: slug, IsDefault: isDefault}, nil
}

// Apply folds one event.
func (w *Workspace) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	switch d := d.(type) {
	case Created:
		w.id, w.orgID, w.name, w.isDefault = d.WorkspaceID, d.OrgID, d.Name, d.IsDefault
	case Renamed:
		w.name = d.Name
	case Archived:
		w.archived = true
	case Restored:
		w.archived = false
	case MemberAdded:
		w.members[d.UserID] = d.Role
	case MemberRoleChanged:
		w.members[d.UserID] = d.To
	case MemberRemoved:
		delete(w.members, d.UserID)
	case KeyAttached:
		w.keys[d.KeyID] = true
	case KeyDetached:
		delete(w.keys, d.KeyID)
	case BudgetSet:
		w.budget = 0
		if d.MonthlyCreditBudget != nil {
			w.budget = *d.MonthlyCreditBudget
		}
	case LLMPolicySet:
		w.llmPolicy = d.AllowedModels
	}
	w.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (w *Workspace) Version() int64 { return w.version }

// ID is the workspace's id.
func (w *Workspace) ID() string { return w.id }

// OrgID is the owning organization.
func (w *Workspace) OrgID() string { return w.orgID }

// Name is the workspace's name.
func (w *Workspace) Name() string { return w.name }

// Archived reports whether the workspace is archived.
func (w *Workspace) Archived() bool { return w.archived }

// RoleOf is user's role, "" for a non-member.
func (w *Workspace) RoleOf(userID string) Role { return w.members[userID] }

// Rename decides a new name.
func (w *Workspace) Rename(name string) (Renamed, error) {
	name, err := ValidName(name)
	if err != nil {
		return Renamed{}, err
	}
	return Renamed{WorkspaceID: w.id, OrgID: w.orgID, From: w.name, Name: name}, nil
}

// Archive decides the archiving; an archived workspace gives no event.
func (w *Workspace) Archive() ([]event.Data, error) {
	switch {
	case w.isDefault:
		return nil, ErrDefault
	case w.archived:
		return nil, nil
	}
	return []event.Data{Archived{WorkspaceID: w.id, OrgID: w.orgID}}, nil
}

// Restore decides the restoring of an archived workspace.
func (w *Workspace) Restore() (Restored, error) {
	if !w.archived {
		return Restored{}, ErrNotArchived
	}
	return Restored{WorkspaceID: w.id, OrgID: w.orgID}, nil
}

// AddMember decides user's joining with role, via how, within tier's
// member limit.
func (w *Workspace) AddMember(tier org.Tier, userID, email, name string, role Role, via, inviteID string) (MemberAdded, error) {
	if w.archived {
		return MemberAdded{}, ErrArchived
	}
	if _, ok := w.members[userID]; ok {
		return MemberAdded{}, ErrAlreadyMember
	}
	if len(w.members) >= LimitOf(tier).Members {
		return MemberAdded{}, ErrMemberLimit
	}
	return MemberAdded{WorkspaceID: w.id, OrgID: w.orgID, UserID: userID, Email: email, Name: name, Role: role,
		Via: via, InviteID: inviteID}, nil
}

// AssignableRole parses a role that can be given by invite or role change:
// viewer, member or admin (owners are made by signup only).
func AssignableRole(s string) (Role, error) {
	r, err := apikey.ParseRole(s)
	if err != nil || r == apikey.Owner {
		return "", ErrInvalidRole
	}
	return r, nil
}

// ChangeRole decides actor's change of member's role to role.
func (w *Workspace) ChangeRole(actorUserID, memberID string, role Role) ([]event.Data, error) {
	from, ok := w.members[memberID]
	if !ok {
		return nil, ErrMemberNotFound
	}
	if memberID == actorUserID && !role.AtLeast(from) {
		return nil, ErrCannotDemoteSelf
	}
	if from == apikey.Owner && role != apikey.Owner && w.owners() == 1 {
		return nil, ErrLastOwner
	}
	if from == role {
		return nil, nil
	}
	return []event.Data{MemberRoleChanged{WorkspaceID: w.id, OrgID: w.orgID, UserID: memberID, From: from, To: role}}, nil
}

// RemoveMember decides the removal of member.
func (w *Workspace) RemoveMember(memberID string) (MemberRemoved, error) {
	r, ok := w.members[memberID]
	if !ok {
		return MemberRemoved{}, ErrMemberNotFound
	}
	if r == apikey.Owner && w.owners() == 1 {
		return MemberRemoved{}, ErrLastOwner
	}
	return MemberRemoved{WorkspaceID: w.id, OrgID: w.orgID, UserID: memberID}, nil
}

func (w *Workspace) owners() int {
	n := 0
	for _, r := range w.members {
		if r == apikey.Owner {
			n++
		}
	}
	return n
}

// AttachKey decides a new API key of the workspace, within tier's limit.
func (w *Workspace) AttachKey(tier org.Tier, keyID string, role Role) (KeyAttached, error) {
	if w.archived {
		return KeyAttached{}, ErrArchived
	}
	if len(w.keys) >= LimitOf(tier).Keys {
		return KeyAttached{}, ErrKeyLimit
	}
	return KeyAttached{WorkspaceID: w.id, OrgID: w.orgID, KeyID: keyID, Role: role}, nil
}

// DetachKey decides the revocation of key keyID (the key's own stream says
// whether it belongs here: keys made before workspaces recorded theirs are
// detached too).
func (w *Workspace) DetachKey(keyID string) KeyDetached {
	return KeyDetached{WorkspaceID: w.id, OrgID: w.orgID, KeyID: keyID}
}
