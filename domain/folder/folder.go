// Package folder is the folder aggregate: a named folder of a workspace
// that workflows are put into. A folder's name is unique in its workspace,
// whatever its case, through a reservation stream per name (Name); which
// folder a workflow is in is the workflow's assignment stream
// (Assignment). Deleting a folder leaves its workflows in no folder.
package folder

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"svc/domain/uniquename"
	"svc/eventstore/event"
)

// MaxName is the longest folder name, in characters.
const MaxName = 100

// MaxMove is how many workflows one request may put into a folder.
const MaxMove = 100

// Domain errors.
var (
	ErrNotFound         = errors.New("folder not found")
	ErrNameRequired     = errors.New("name is required")
	ErrNameTooLong      = errors.New("name longer than 100 characters")
	ErrNameTaken        = errors.New("a folder of the workspace has this name")
	ErrNotInFolder      = errors.New("workflow is not in this folder")
	ErrWorkflowNotFound = errors.New("workflow not found")
)

// WorkflowError is ErrWorkflowNotFound naming the workflow.
type WorkflowError struct{ WorkflowID string }

func (e WorkflowError) Error() string { return fmt.Sprintf("workflow %s not found", e.WorkflowID) }

// Unwrap makes a WorkflowError match ErrWorkflowNotFound.
func (e WorkflowError) Unwrap() error { return ErrWorkflowNotFound }

// Stream is the stream id of folder id.
func Stream(id string) string { return "folder-" + id }

// NameKey is the reservation key of name in workspace wsID: the workspace
// and a hash of the normalized name (Normalize), so that any name fits a
// stream id.
func NameKey(wsID, name string) string { return uniquename.Key(wsID, name) }

// NameStream is the reservation stream of key (NameKey).
func NameStream(key string) string { return "folder-name-" + key }

// AssignmentStream is the stream of the folder workflow id is in.
func AssignmentStream(workflowID string) string { return "folder-workflow-" + workflowID }

// Normalize is the form of a name that must be unique in a workspace:
// trimmed, inner runs of white space made one space, lowercased.
func Normalize(name string) string { return uniquename.Normalize(name) }

// ValidName trims name and checks it: 1 to MaxName characters.
func ValidName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", ErrNameRequired
	case utf8.RuneCountInString(name) > MaxName:
		return "", ErrNameTooLong
	}
	return name, nil
}

// Folder is the aggregate.
type Folder struct {
	id          string
	orgID       string
	workspaceID string
	name        string
	deleted     bool
	version     int64
}

// New is a folder with no events yet.
func New() *Folder { return &Folder{version: event.NewStream} }

// Create decides a new folder of workspace wsID.
func Create(id, orgID, wsID, name string) (Created, error) {
	name, err := ValidName(name)
	if err != nil {
		return Created{}, err
	}
	return Created{FolderID: id, OrgID: orgID, WorkspaceID: wsID, Name: name}, nil
}

// Apply folds one event.
func (f *Folder) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("folder: %w", err)
	}
	switch d := d.(type) {
	case Created:
		f.id, f.orgID, f.workspaceID, f.name = d.FolderID, d.OrgID, d.WorkspaceID, d.Name
	case Renamed:
		f.name = d.Name
	case Deleted:
		f.deleted = true
	}
	f.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (f *Folder) Version() int64 { return f.version }

// ID is the folder's id.
func (f *Folder) ID() string { return f.id }

// OrgID is the owning organization.
func (f *Folder) OrgID() string { return f.orgID }

// WorkspaceID is the folder's workspace.
func (f *Folder) WorkspaceID() string { return f.workspaceID }

// Name is the folder's name.
func (f *Folder) Name() string { return f.name }

// Exists reports whether the folder was created and not deleted.
func (f *Folder) Exists() bool { return f.id != "" && !f.deleted }

// Rename decides a new name; the same name gives no event. Reserve tells
// whether the normalized name changed, so that the new one must be
// reserved and the old one released.
func (f *Folder) Rename(name string) (renamed []event.Data, reserve bool, err error) {
	if !f.Exists() {
		return nil, false, ErrNotFound
	}
	name, err = ValidName(name)
	if err != nil || name == f.name {
		return nil, false, err
	}
	return []event.Data{Renamed{FolderID: f.id, OrgID: f.orgID, WorkspaceID: f.workspaceID, From: f.name, Name: name}},
		Normalize(name) != Normalize(f.name), nil
}

// Delete decides the folder's deletion.
func (f *Folder) Delete() (Deleted, error) {
	if !f.Exists() {
		return Deleted{}, ErrNotFound
	}
	return Deleted{FolderID: f.id, OrgID: f.orgID, WorkspaceID: f.workspaceID, Name: f.name}, nil
}

// Name is a name's reservation in a workspace: the folder holding it.
type Name struct {
	holder  string
	version int64
}

// NewName is a reservation with no events yet: the name is free.
func NewName() *Name { return &Name{version: event.NewStream} }

// Apply folds one event.
func (n *Name) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("folder name: %w", err)
	}
	switch d := d.(type) {
	case NameReserved:
		n.holder = d.FolderID
	case NameReleased:
		n.holder = ""
	}
	n.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (n *Name) Version() int64 { return n.version }

// Holder is the folder holding the name, "" when it is free.
func (n *Name) Holder() string { return n.holder }

// Reserve decides folderID's taking the name: ErrNameTaken when another
// folder holds it, nothing when folderID does.
func (n *Name) Reserve(folderID, wsID string) ([]event.Data, error) {
	switch n.holder {
	case "":
		return []event.Data{NameReserved{FolderID: folderID, WorkspaceID: wsID}}, nil
	case folderID:
		return nil, nil
	}
	return nil, ErrNameTaken
}

// Release decides folderID's giving the name up; nothing when it does not
// hold it.
func (n *Name) Release(folderID, wsID string) []event.Data {
	if n.holder != folderID || folderID == "" {
		return nil
	}
	return []event.Data{NameReleased{FolderID: folderID, WorkspaceID: wsID}}
}

// Assignment is the folder a workflow is in.
type Assignment struct {
	folderID string
	version  int64
}

// NewAssignment is a workflow's assignment with no events yet: in no
// folder.
func NewAssignment() *Assignment { return &Assignment{version: event.NewStream} }

// Apply folds one event.
func (a *Assignment) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("folder assignment: %w", err)
	}
	switch d := d.(type) {
	case WorkflowAdded:
		a.folderID = d.FolderID
	case WorkflowRemoved:
		a.folderID = ""
	}
	a.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (a *Assignment) Version() int64 { return a.version }

// FolderID is the folder the workflow was last put into ("" for none).
// A folder deleted since holds nothing: its workflows are in no folder.
func (a *Assignment) FolderID() string { return a.folderID }

// Add decides putting workflow workflowID, of organization orgID and
// workspace wsID, into folder f; nothing when it is there already. A
// folder holds workflows of its own workspace only: another's is a
// WorkflowError, as an unknown workflow is.
func (a *Assignment) Add(f *Folder, workflowID, orgID, wsID string) ([]event.Data, error) {
	switch {
	case !f.Exists():
		return nil, ErrNotFound
	case orgID != f.orgID || wsID != f.workspaceID:
		return nil, WorkflowError{WorkflowID: workflowID}
	case a.folderID == f.id:
		return nil, nil
	}
	return []event.Data{WorkflowAdded{WorkflowID: workflowID, OrgID: orgID, WorkspaceID: wsID, FolderID: f.id, From: a.folderID}}, nil
}

// Remove decides taking workflow workflowID out of folder f: ErrNotInFolder
// when it is not in f.
func (a *Assignment) Remove(f *Folder, workflowID string) (WorkflowRemoved, error) {
	if !f.Exists() {
		return WorkflowRemoved{}, ErrNotFound
	}
	if a.folderID != f.id {
		return WorkflowRemoved{}, ErrNotInFolder
	}
	return WorkflowRemoved{WorkflowID: workflowID, OrgID: f.orgID, WorkspaceID: f.workspaceID, FolderID: f.id}, nil
}
