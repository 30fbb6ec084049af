package folder

import "svc/eventstore/event"

// Event types of folder streams (folder-<id>), name reservation streams
// (folder-name-<workspace>-<hash>) and workflow assignment streams
// (folder-workflow-<workflow id>).
const (
	EventCreated = "FolderCreated"
	EventRenamed = "FolderRenamed"
	EventDeleted = "FolderDeleted"
	// EventNameReserved and EventNameReleased are the events of a name's
	// reservation stream: the last one says whether a folder of the
	// workspace holds the name.
	EventNameReserved = "FolderNameReserved"
	EventNameReleased = "FolderNameReleased"
	// EventWorkflowAdded and EventWorkflowRemoved are the events of a
	// workflow's assignment stream: the folder it is in.
	EventWorkflowAdded   = "FolderWorkflowAdded"
	EventWorkflowRemoved = "FolderWorkflowRemoved"
)

// Created is the data of FolderCreated.
type Created struct {
	FolderID    string `json:"folder_id"`
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
	Name        string `json:"name"`
}

// Renamed is the data of FolderRenamed.
type Renamed struct {
	FolderID    string `json:"folder_id"`
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
	From        string `json:"from"`
	Name        string `json:"name"`
}

// Deleted is the data of FolderDeleted: the folder is gone and its
// workflows are in no folder.
type Deleted struct {
	FolderID    string `json:"folder_id"`
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
	Name        string `json:"name"`
}

// NameReserved is the data of FolderNameReserved.
type NameReserved struct {
	FolderID    string `json:"folder_id"`
	WorkspaceID string `json:"workspace_id"`
}

// NameReleased is the data of FolderNameReleased.
type NameReleased struct {
	FolderID    string `json:"folder_id"`
	WorkspaceID string `json:"workspace_id"`
}

// WorkflowAdded is the data of FolderWorkflowAdded: the workflow is in
// FolderID now, out of From ("" when it was in no folder).
type WorkflowAdded struct {
	WorkflowID  string `json:"workflow_id"`
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
	FolderID    string `json:"folder_id"`
	From        string `json:"from,omitempty"`
}

// WorkflowRemoved is the data of FolderWorkflowRemoved: the workflow is
// in no folder now.
type WorkflowRemoved struct {
	WorkflowID  string `json:"workflow_id"`
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
	FolderID    string `json:"folder_id"`
}

// EventType implements event.Data.
func (Created) EventType() string { return EventCreated }

// EventType implements event.Data.
func (Renamed) EventType() string { return EventRenamed }

// EventType implements event.Data.
func (Deleted) EventType() string { return EventDeleted }

// EventType implements event.Data.
func (NameReserved) EventType() string { return EventNameReserved }

// EventType implements event.Data.
func (NameReleased) EventType() string { return EventNameReleased }

// EventType implements event.Data.
func (WorkflowAdded) EventType() string { return EventWorkflowAdded }

// EventType implements event.Data.
func (WorkflowRemoved) EventType() string { return EventWorkflowRemoved }

// RegisterEvents registers the events of folder, name and assignment
// streams.
func RegisterEvents(r *event.Registry) {
	event.Register[Created](r)
	event.Register[Renamed](r)
	event.Register[Deleted](r)
	event.Register[NameReserved](r)
	event.Register[NameReleased](r)
	event.Register[WorkflowAdded](r)
	event.Register[WorkflowRemoved](r)
}

var registry = event.NewRegistry(RegisterEvents)
