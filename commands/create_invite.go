package commands

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"

	"svc/adapters/mail"
	"svc/domain/apikey"
	"svc/domain/invite"
	"svc/domain/user"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
)

// CreateInvite invites to a workspace: by email (Kind invite.Email; the
// link is mailed) or as an invite link (invite.Link; the token is shown to
// admins, who pass it on).
type CreateInvite struct {
	OrgID       string
	WorkspaceID string
	Kind        string
	Email       string
	Role        apikey.Role
	MaxUses     *int // links; nil: unlimited
	Days        *int // lifetime; nil: 7 days
	CreatedBy   string
}

// InviteCreated is the outcome of CreateInvite.
type InviteCreated struct {
	InviteID  string
	Token     string
	URL       string
	ExpiresAt time.Time
	MaxUses   *int
	Position  event.Position
}

// CreateInviteHandler handles CreateInvite.
type CreateInviteHandler struct {
	repos  *Repositories
	sealer Sealer
	mail   *verificationMail // nil: no mail
	base   string
	now    func() time.Time
}

// NewCreateInviteHandler returns a handler over repos that seals link
// tokens with sealer and mails email invites through m (nil: none), with
// accept links under baseURL.
func NewCreateInviteHandler(repos *Repositories, sealer Sealer, m *verificationMail, baseURL string) CreateInviteHandler {
	if sealer == nil {
		panic("commands: nil sealer")
	}
	return CreateInviteHandler{repos: must(repos), sealer: sealer, mail: m, base: baseURL, now: time.Now}
}

// InviteURL is where an invite's token is accepted: the dashboard's page
// (/dashboard/invite), which has the user sign in or up, then posts it to
// /api/invites/accept.
func InviteURL(baseURL, token string) string {
	return baseURL + "/dashboard/invite?token=" + url.QueryEscape(token)
}

// Handle appends InviteCreated (the workspace must exist and be active),
// then mails an email invite.
func (h CreateInviteHandler) Handle(ctx context.Context, cmd CreateInvite) (InviteCreated, error) {
	ttl, err := invite.TTLDays(cmd.Days)
	if err != nil {
		return InviteCreated{}, err
	}
	secret, err := user.NewToken()
	if err != nil {
		return InviteCreated{}, err
	}
	id := uuid.NewString()
	token := invite.Token(id, secret)
	sealed := ""
	if cmd.Kind == invite.Link {
		sealed = h.sealer.Seal([]byte(token))
	}
	created, err := invite.Create(id, cmd.OrgID, cmd.WorkspaceID, cmd.Kind, cmd.Email, cmd.Role, cmd.MaxUses, ttl, h.now(), token, sealed, cmd.CreatedBy)
	if err != nil {
		return InviteCreated{}, err
	}
	var wsName string
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		w, err := h.repos.Workspaces.LoadOwned(tx, cmd.OrgID, cmd.WorkspaceID)
		if err != nil {
			return err
		}
		if w.Archived() {
			return workspace.ErrArchived
		}
		wsName = w.Name()
		_, err = tx.Append(invite.Stream(id), event.NewStream, created)
		return err
	})
	if err != nil {
		return InviteCreated{}, fmt.Errorf("create invite: %w", err)
	}
	link := InviteURL(h.base, token)
	if cmd.Kind == invite.Email && h.mail != nil {
		h.mail.deliver(mail.Message{
			To:      created.Email,
			Subject: "You are invited to the workspace " + wsName,
			Body: "Hello,\n\nYou are invited to join the workspace \"" + wsName + "\" as " + string(cmd.Role) + ".\n\n" +
				"Open this link to accept (sign up with this email address first if you have no account):\n\n" + link +
				"\n\nThe invitation expires on " + created.ExpiresAt.Format(time.RFC1123) + ".\n",
		})
	}
	return InviteCreated{InviteID: id, Token: token, URL: link, ExpiresAt: created.ExpiresAt, MaxUses: created.MaxUses, Position: pos}, nil
}
