package commands

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"svc/domain/apikey"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
)

// slugTries bounds the slugs tried for a new workspace (name, name-2 ...).
const slugTries = 50

// CreateWorkspace creates a workspace in an organization of the Team or
// Enterprise tier, within the tier's workspace limit. A user who creates
// it becomes its owner.
type CreateWorkspace struct {
	OrgID string
	Name  string
	// UserID, Email and DisplayName are the creating user's ("" for a key).
	UserID, Email, DisplayName string
}

// WorkspaceCreated is the outcome of CreateWorkspace.
type WorkspaceCreated struct {
	WorkspaceID string
	Slug        string
	Position    event.Position
}

// CreateWorkspaceHandler handles CreateWorkspace.
type CreateWorkspaceHandler struct{ repos *Repositories }

// NewCreateWorkspaceHandler returns a handler over repos.
func NewCreateWorkspaceHandler(repos *Repositories) CreateWorkspaceHandler {
	return CreateWorkspaceHandler{repos: must(repos)}
}

// Handle appends the organization's count, the slug reservation and the
// workspace (with its owner) in one transaction; the org's stream version
// makes concurrent creations respect the limit.
func (h CreateWorkspaceHandler) Handle(ctx context.Context, cmd CreateWorkspace) (WorkspaceCreated, error) {
	name, err := workspace.ValidName(cmd.Name)
	if err != nil {
		return WorkspaceCreated{}, err
	}
	id := uuid.NewString()
	out := WorkspaceCreated{WorkspaceID: id}
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		o, err := h.repos.Orgs.Load(tx, cmd.OrgID)
		if err != nil {
			return err
		}
		if err := workspace.CanCreate(o.Tier(), o.Workspaces()); err != nil {
			return err
		}
		slug, err := reserveSlug(tx, cmd.OrgID, id, name)
		if err != nil {
			return err
		}
		out.Slug = slug
		created, err := workspace.Create(id, cmd.OrgID, name, slug, false)
		if err != nil {
			return err
		}
		data := []event.Data{created}
		if cmd.UserID != "" {
			ws, err := foldNew(workspace.New(), workspace.Stream(id), created)
			if err != nil {
				return err
			}
			owner, err := ws.AddMember(o.Tier(), cmd.UserID, cmd.Email, cmd.DisplayName, apikey.Owner, "created", "")
			if err != nil {
				return err
			}
			data = append(data, owner)
		}
		if _, err := h.repos.Orgs.Save(tx, cmd.OrgID, o, o.AddWorkspace(id)); err != nil {
			return err
		}
		_, err = tx.Append(workspace.Stream(id), event.NewStream, data...)
		return err
	})
	if err != nil {
		return WorkspaceCreated{}, fmt.Errorf("create workspace: %w", err)
	}
	out.Position = pos
	return out, nil
}

// reserveSlug takes the first slug of name that no workspace of the
// organization holds. Two creations racing for one slug: the second's
// append conflicts, Run retries it, and it takes the next slug.
func reserveSlug(tx *eventstore.Tx, orgID, wsID, name string) (string, error) {
	for _, slug := range workspace.Candidates(name, slugTries) {
		stream := workspace.SlugStream(orgID, slug)
		_, taken, err := tx.Store().Last(tx.Context(), tx.DB(), stream)
		if err != nil {
			return "", err
		}
		if taken {
			continue
		}
		if _, err := tx.Append(stream, event.NewStream, workspace.SlugReserved{WorkspaceID: wsID}); err != nil {
			return "", err
		}
		return slug, nil
	}
	return "", fmt.Errorf("no free slug for %q after %d tries", name, slugTries)
}

// appendDefaultWorkspace appends organization orgID's default workspace
// wsID with then (its first members or keys, decided on it) and reserves
// its slug, in tx: the one place both signups create it.
func appendDefaultWorkspace(tx *eventstore.Tx, orgID, wsID string, then func(*workspace.Workspace) ([]event.Data, error)) error {
	created := workspace.CreateDefault(wsID, orgID)
	ws, err := foldNew(workspace.New(), workspace.Stream(wsID), created)
	if err != nil {
		return err
	}
	more, err := then(ws)
	if err != nil {
		return err
	}
	if _, err := tx.Append(workspace.Stream(wsID), event.NewStream, append([]event.Data{created}, more...)...); err != nil {
		return err
	}
	_, err = tx.Append(workspace.SlugStream(orgID, workspace.DefaultSlug), event.NewStream, workspace.SlugReserved{WorkspaceID: wsID})
	return err
}
