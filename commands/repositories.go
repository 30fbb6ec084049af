package commands

import (
	"time"

	"github.com/google/uuid"

	"svc/domain/apikey"
	"svc/domain/connection"
	"svc/domain/credit"
	"svc/domain/deletion"
	"svc/domain/delivery"
	"svc/domain/folder"
	"svc/domain/hook"
	"svc/domain/invite"
	"svc/domain/org"
	"svc/domain/payment"
	"svc/domain/user"
	"svc/domain/workflow"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
)

// cacheSize bounds the folded ledgers and slot sets a process keeps.
const cacheSize = 50_000

// LedgerSnapshotEvery is how many events a load of a ledger may fold past
// its latest snapshot before it writes a new one: what a charge with a
// cold cache (a fresh process, another instance, an evicted entry) folds
// at most, whatever the ledger's length. Reading and folding an event costs
// about 10 µs, so a cold charge folds at most about 2.5 ms of tail (on
// average half); a snapshot write (in the background, one small row) is
// due every 250 ledger events an instance folds.
const LedgerSnapshotEvery = 250

// Repositories are the repositories of the service's aggregates over one
// store. One value serves every handler and worker of a process, so the
// fold caches of long streams (ledgers, active slots) are shared.
type Repositories struct {
	Store      *eventstore.Store
	Orgs       *eventstore.Repository[*org.Organization]
	Keys       *eventstore.Repository[*apikey.Key]
	Ledgers    *eventstore.Repository[*credit.Ledger]
	Slots      *eventstore.Repository[*workflow.Slots]
	Workflows  *eventstore.Repository[*workflow.Workflow]
	Deliveries *eventstore.Repository[*delivery.Delivery]
	Users      *eventstore.Repository[*user.User]
	Workspaces *eventstore.Repository[*workspace.Workspace]
	Invites    *eventstore.Repository[*invite.Invite]
	// Endpoints are workspace webhook endpoints; Connections an org's MCP
	// connection to one provider.
	Endpoints   *eventstore.Repository[*hook.Endpoint]
	Connections *eventstore.Repository[*connection.Connection]
	// Gateways are organizations' context-server connections (by org id,
	// all of an organization's on one stream).
	Gateways *eventstore.Repository[*connection.Gateway]
	// Folders, FolderNames (by folder.NameKey) and FolderAssignments (by
	// workflow id): folders, their names' reservations, workflows' folders.
	Folders           *eventstore.Repository[*folder.Folder]
	FolderNames       *eventstore.Repository[*folder.Name]
	FolderAssignments *eventstore.Repository[*folder.Assignment]
	// PaymentEvents (by processor event id) and Checkouts (by checkout
	// session id): what the payment processor's events did, once each.
	PaymentEvents *eventstore.Repository[*payment.Record]
	Checkouts     *eventstore.Repository[*payment.Record]
	// Deletions are organizations' data deletion requests (by org id).
	Deletions *eventstore.Repository[*deletion.Requests]
}

// NewRepositories returns the repositories over store.
func NewRepositories(store *eventstore.Store) *Repositories {
	if store == nil {
		panic("commands: nil event store")
	}
	return &Repositories{
		Store: store,
		Orgs: eventstore.NewRepository(store, eventstore.Kind[*org.Organization]{
			Stream: org.Stream, New: func(string) *org.Organization { return org.New() }, NotFound: org.ErrNotFound,
			Owner: (*org.Organization).ID,
		}),
		Keys: eventstore.NewRepository(store, eventstore.Kind[*apikey.Key]{
			Stream: apikey.Stream, New: func(string) *apikey.Key { return apikey.New() }, NotFound: apikey.ErrNotFound,
			Owner: (*apikey.Key).OrgID,
		}),
		// a busy org's ledger grows by a charge per step: a charge should
		// not re-read all of it, in this process (the cache) nor in a
		// fresh one or after an eviction (the snapshots)
		Ledgers: eventstore.NewRepository(store, eventstore.Kind[*credit.Ledger]{
			Stream: credit.Stream, New: credit.New, Owner: (*credit.Ledger).OrgID,
			Cache: cacheSize, Clone: (*credit.Ledger).Clone,
			Snapshots: &eventstore.Snapshots[*credit.Ledger]{
				Codec: credit.SnapshotCodec, Encode: (*credit.Ledger).Snapshot, Decode: credit.FromSnapshot,
				Every: LedgerSnapshotEvery,
			},
			// auto-reload: the append that takes the balance below the
			// threshold requests the reload (credit.Ledger.Follow)
			Follow: func(l *credit.Ledger, data []event.Data) []event.Data { return l.Follow(data, time.Now()) },
		}),
		Slots: eventstore.NewRepository(store, eventstore.Kind[*workflow.Slots]{
			Stream: workflow.SlotsStream, New: func(string) *workflow.Slots { return workflow.NewSlots() },
			Cache: cacheSize, Clone: (*workflow.Slots).Clone,
		}),
		Workflows: eventstore.NewRepository(store, eventstore.Kind[*workflow.Workflow]{
			Stream: workflow.Stream, New: func(string) *workflow.Workflow { return workflow.New() }, NotFound: workflow.ErrNotFound,
			Valid: workflow.ValidID, Owner: (*workflow.Workflow).OrgID,
		}),
		Deliveries: eventstore.NewRepository(store, eventstore.Kind[*delivery.Delivery]{
			Stream: delivery.Stream, New: func(string) *delivery.Delivery { return delivery.New() }, NotFound: delivery.ErrNotFound,
			Owner: func(d *delivery.Delivery) string { return d.Scheduled().OrgID },
		}),
		Users: eventstore.NewRepository(store, eventstore.Kind[*user.User]{
			Stream: user.Stream, New: func(string) *user.User { return user.New() }, NotFound: user.ErrNotFound,
			Valid: func(id string) bool { return uuid.Validate(id) == nil }, Owner: (*user.User).OrgID,
		}),
		Workspaces: eventstore.NewRepository(store, eventstore.Kind[*workspace.Workspace]{
			Stream: workspace.Stream, New: func(string) *workspace.Workspace { return workspace.New() }, NotFound: workspace.ErrNotFound,
			Valid: func(id string) bool { return uuid.Validate(id) == nil }, Owner: (*workspace.Workspace).OrgID,
		}),
		Endpoints: eventstore.NewRepository(store, eventstore.Kind[*hook.Endpoint]{
			Stream: hook.Stream, New: func(string) *hook.Endpoint { return hook.New() }, NotFound: hook.ErrNotFound,
			Valid: func(id string) bool { return uuid.Validate(id) == nil }, Exists: (*hook.Endpoint).Exists, Owner: (*hook.Endpoint).OrgID,
		}),
		Connections: eventstore.NewRepository(store, eventstore.Kind[*connection.Connection]{
			Stream: connection.Stream, New: connection.New, Owner: (*connection.Connection).OrgID,
		}),
		Gateways: eventstore.NewRepository(store, eventstore.Kind[*connection.Gateway]{
			Stream: connection.GatewayStream, New: connection.NewGateway, Owner: (*connection.Gateway).OrgID,
			Cache: cacheSize, Clone: (*connection.Gateway).Clone,
		}),
		Invites: eventstore.NewRepository(store, eventstore.Kind[*invite.Invite]{
			Stream: invite.Stream, New: func(string) *invite.Invite { return invite.New() }, NotFound: invite.ErrNotFound,
			Valid: func(id string) bool { return uuid.Validate(id) == nil }, Owner: (*invite.Invite).OrgID,
		}),
		Folders: eventstore.NewRepository(store, eventstore.Kind[*folder.Folder]{
			Stream: folder.Stream, New: func(string) *folder.Folder { return folder.New() }, NotFound: folder.ErrNotFound,
			Valid: func(id string) bool { return uuid.Validate(id) == nil }, Exists: (*folder.Folder).Exists, Owner: (*folder.Folder).OrgID,
		}),
		FolderNames: eventstore.NewRepository(store, eventstore.Kind[*folder.Name]{
			Stream: folder.NameStream, New: func(string) *folder.Name { return folder.NewName() },
		}),
		FolderAssignments: eventstore.NewRepository(store, eventstore.Kind[*folder.Assignment]{
			Stream: folder.AssignmentStream, New: func(string) *folder.Assignment { return folder.NewAssignment() },
		}),
		PaymentEvents: eventstore.NewRepository(store, eventstore.Kind[*payment.Record]{
			Stream: payment.Stream, New: func(string) *payment.Record { return payment.NewRecord() },
		}),
		Checkouts: eventstore.NewRepository(store, eventstore.Kind[*payment.Record]{
			Stream: payment.CheckoutStream, New: func(string) *payment.Record { return payment.NewRecord() },
		}),
		Deletions: eventstore.NewRepository(store, eventstore.Kind[*deletion.Requests]{
			Stream: deletion.Stream, New: func(string) *deletion.Requests { return deletion.New() },
		}),
	}
}
