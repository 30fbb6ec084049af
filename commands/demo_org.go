package commands

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"svc/domain/apikey"
	"svc/domain/org"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
)

// The demo organization: anonymous plans (spec A, Authentication item 5:
// rigor_plan on the workflow MCP server without a key) are made in it.
// It is an organization like any other, event-sourced, created on first
// use with ids every instance derives alike (UUIDv5 of fixed names) and
// appended at expected version -1, so that instances racing to create it
// on one database create it once. Its key's secret is never kept (only
// a hash of random bytes is stored): no one can call as it, the API only
// acts as it for an anonymous plan. It has no credits: planning is free.

// DemoOrgName names the demo organization.
const DemoOrgName = "Demo (anonymous workflow MCP)"

// The demo organization's ids.
var (
	demoNamespace   = uuid.NewSHA1(uuid.NameSpaceURL, []byte("svc:anonymous-demo"))
	DemoOrgID       = uuid.NewSHA1(demoNamespace, []byte("organization")).String()
	DemoWorkspaceID = uuid.NewSHA1(demoNamespace, []byte("workspace")).String()
	DemoKeyID       = uuid.NewSHA1(demoNamespace, []byte("key")).String()
)

// DemoOrg is the demo organization's ids.
type DemoOrg struct{ OrgID, WorkspaceID, KeyID string }

// DemoOrgs makes sure the demo organization exists, once per process.
type DemoOrgs struct {
	repos *Repositories
	mu    sync.Mutex
	ready bool
}

// NewDemoOrgs returns the demo organization's creator over repos.
func NewDemoOrgs(repos *Repositories) *DemoOrgs { return &DemoOrgs{repos: must(repos)} }

// errDemoExists ends a creation that found the organization created by
// another instance (no retry: there is nothing to do).
var errDemoExists = errors.New("demo organization exists")

// Ensure creates the demo organization unless it exists and returns its
// ids. After one success the process does not look again.
func (d *DemoOrgs) Ensure(ctx context.Context) (DemoOrg, error) {
	ids := DemoOrg{OrgID: DemoOrgID, WorkspaceID: DemoWorkspaceID, KeyID: DemoKeyID}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ready {
		return ids, nil
	}
	if _, err := d.repos.Orgs.Get(ctx, DemoOrgID); err == nil {
		d.ready = true
		return ids, nil
	} else if !errors.Is(err, org.ErrNotFound) {
		return DemoOrg{}, fmt.Errorf("demo organization: %w", err)
	}
	if err := d.create(ctx); err != nil && !errors.Is(err, errDemoExists) {
		return DemoOrg{}, fmt.Errorf("demo organization: %w", err)
	}
	d.ready = true
	return ids, nil
}

// create appends the organization, its default workspace and its key in
// one transaction, each stream new: of racing creations the first
// commits and the others find its organization stream and stop.
func (d *DemoOrgs) create(ctx context.Context) error {
	created, err := org.Create(DemoOrgID, DemoOrgName, "", DemoWorkspaceID, "", "")
	if err != nil {
		return err
	}
	secret, err := apikey.Generate() // its raw value is dropped here
	if err != nil {
		return err
	}
	m := event.Metadata{OrgID: DemoOrgID, Actor: "system"}
	_, err = d.repos.Store.Run(ctx, eventstore.TxOptions{Metadata: m}, func(tx *eventstore.Tx) error {
		if _, err := tx.Append(org.Stream(DemoOrgID), event.NewStream, created); errors.Is(err, event.ErrConcurrency) {
			return errDemoExists
		} else if err != nil {
			return err
		}
		if err := appendDefaultWorkspace(tx, DemoOrgID, DemoWorkspaceID, func(ws *workspace.Workspace) ([]event.Data, error) {
			attached, err := ws.AttachKey(org.Free, DemoKeyID, apikey.Viewer)
			return []event.Data{attached}, err
		}); err != nil {
			return err
		}
		_, err := tx.Append(apikey.Stream(DemoKeyID), event.NewStream, apikey.Created{KeyID: DemoKeyID, OrgID: DemoOrgID,
			WorkspaceID: DemoWorkspaceID, Hash: secret.Hash, Prefix: secret.Prefix, Label: "Anonymous workflow MCP (no secret kept)",
			Role: apikey.Viewer, CreatedBy: "system"})
		return err
	})
	return err
}
