package httpapi

import "time"

// Typed answers of the platform routes that have no type of their own
// elsewhere: the handlers write these, and the OpenAPI document reflects
// the same types (openapi_ops.go), so the two cannot differ.

// successResponse is spec B's {success:true}.
type successResponse struct {
	Success bool `json:"success"`
}

// okResponse is spec B's {ok:true}.
type okResponse struct {
	OK bool `json:"ok"`
}

// workspacesResponse is the answer of GET /api/workspaces.
type workspacesResponse struct {
	Workspaces []workspaceBody `json:"workspaces"`
}

// restoreResponse is the answer of POST /api/workspaces/{id}/restore.
type restoreResponse struct {
	OK          bool   `json:"ok"`
	WorkspaceID string `json:"workspace_id"`
	Status      string `json:"status"`
}

// membersResponse is the answer of GET /api/workspaces/{id}/members.
type membersResponse struct {
	Members []memberBody `json:"members"`
}

// memberRoleResponse is the answer of PATCH .../members/{member_id}.
type memberRoleResponse struct {
	MemberID string `json:"member_id"`
	Role     Role   `json:"role"`
}

// workspaceKeysResponse is the answer of GET .../api-keys.
type workspaceKeysResponse struct {
	APIKeys []workspaceKeyBody `json:"api_keys"`
}

// workspaceKeyCreated is the answer of POST .../api-keys: the raw key,
// shown this once.
type workspaceKeyCreated struct {
	KeyID     string    `json:"key_id"`
	Key       string    `json:"key"`
	Prefix    string    `json:"prefix"`
	Label     string    `json:"label"`
	Role      Role      `json:"role"`
	CreatedAt time.Time `json:"created_at"`
}

// inviteLinkCreated is the answer of POST .../invites.
type inviteLinkCreated struct {
	OK        bool      `json:"ok"`
	InviteID  string    `json:"invite_id"`
	Token     string    `json:"token"`
	URL       string    `json:"url"`
	Role      Role      `json:"role"`
	ExpiresAt time.Time `json:"expires_at"`
	MaxUses   *int      `json:"max_uses"`
}

// inviteLinksResponse is the answer of GET .../invites.
type inviteLinksResponse struct {
	OK      bool         `json:"ok"`
	Invites []inviteLink `json:"invites"`
}

// inviteAcceptedResponse is the answer of POST /api/invites/accept.
type inviteAcceptedResponse struct {
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	Role          Role   `json:"role"`
}

// foldersResponse is the answer of GET .../folders.
type foldersResponse struct {
	Folders []folderBody `json:"folders"`
}

// folderWorkflowsResponse is the answer of POST .../folders/{folder_id}/workflows:
// the workflows now in the folder.
type folderWorkflowsResponse struct {
	FolderID    string   `json:"folder_id"`
	WorkflowIDs []string `json:"workflow_ids"`
}

// webhooksResponse is the answer of GET .../webhooks.
type webhooksResponse struct {
	Webhooks []webhookBody `json:"webhooks"`
}

// webhookTestResponse is the answer of POST .../webhooks/{webhook_id}/test.
type webhookTestResponse struct {
	OK         bool `json:"ok"`
	Delivered  bool `json:"delivered"`
	StatusCode int  `json:"status_code"`
}

// webhookVerifyResponse is the answer of POST .../webhooks/{webhook_id}/verify.
type webhookVerifyResponse struct {
	OK    bool `json:"ok"`
	Valid bool `json:"valid"`
}
