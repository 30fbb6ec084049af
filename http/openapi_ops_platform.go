package httpapi

import (
	"strconv"

	"svc/domain/apikey"
)

// Tags of spec B's routes.
const (
	tagKeys          = "API keys"
	tagSessions      = "Sessions"
	tagUser          = "User"
	tagBilling       = "Billing"
	tagNotifications = "Notifications"
	tagWorkspaces    = "Workspaces"
	tagMembers       = "Members and invites"
	tagWorkspaceKeys = "Workspace API keys"
	tagFolders       = "Folders"
	tagSettings      = "Workspace settings"
	tagHooks         = "Workspace webhooks"
	tagConnections   = "MCP connections"
	tagDataDeletion  = "Data deletion"
)

var (
	archived     = errs(400, "invalid_body") // a write in an archived workspace
	missingField = errs(400, "missing_field")
	limitParam   = func(max int, def string) param {
		return query("limit", "1-"+strconv.Itoa(max)+", default "+def+".", jsonSchema{"type": "integer", "minimum": 1, "maximum": max})
	}
	// membershipRefusals are membershipError's codes.
	membershipRefusals = []codes{errs(409, "already_member"), errs(402, "member_limit_reached"), errs(404, "not_found"),
		errs(400, "cannot_demote_self", "cannot_remove_last_owner", "invalid_body")}
)

// platformOps are spec B's routes, by route name.
var platformOps = map[string]apiOp{
	"keys.create": {tag: tagKeys, summary: "Sign up an organization", guard: guardNone, body: createKeyBody{}, bodyOptional: true,
		replies: []reply{ok(201, "The organization, its default workspace and owner key (shown once).", signupResponse{})},
		errs:    []codes{errs(409, "duplicate_email"), errs(429, "rate_limited"), errs(500, "db_error")}},
	"keys.verify": {tag: tagKeys, summary: "Check a key", guard: guardKeyCheck,
		replies: []reply{ok(200, "The key's organization and whether it pays.", keyCheckResponse{})}},
	"keys.verify_email": {tag: tagKeys, summary: "Verify the signup email", guard: guardNone,
		params:  []param{query("token", "The token of the mailed link.", str).must()},
		replies: []reply{ok(200, "The email is verified (credits granted the first time).", emailVerifiedResponse{})},
		errs:    []codes{errs(400, "missing_field", "invalid_token")}},

	"auth.signup": {tag: tagSessions, summary: "Sign up a user", guard: guardNone, body: signUpBody{}, required: []string{"email", "password"},
		replies: []reply{ok(201, "The user, their organization and default workspace, and a session (cookies set).", sessionResponse{})},
		errs:    []codes{missingField, errs(409, "email_already_registered"), errs(429, "rate_limited"), errs(500, "signup_failed")}},
	"auth.login": {tag: tagSessions, summary: "Log in", guard: guardNone, body: loginBody{}, required: []string{"email", "password"},
		replies: []reply{ok(200, "A session (cookies set).", sessionResponse{})},
		errs:    []codes{missingField, errs(401, "invalid_credentials"), errs(429, "rate_limited")}},
	"auth.logout": {tag: tagSessions, summary: "Log out", guard: guardSession, readsBody: true,
		replies: []reply{ok(200, "The session ended on every instance (cookies cleared).", successResponse{})}},
	"auth.refresh": {tag: tagSessions, summary: "Refresh a session", guard: guardNone, body: refreshBody{}, bodyOptional: true,
		replies: []reply{ok(200, "New tokens; the old refresh token stops working.", sessionResponse{})},
		errs:    []codes{missingField, errs(401, "unauthorized")}},
	"auth.callback": {tag: tagSessions, summary: "Use a mailed sign-in link", guard: guardNone,
		params:  []param{query("code", "The link's one-time code.", str).must(), query("next", "A local path to go to (default /dashboard).", str)},
		replies: []reply{{status: 302, desc: "Signed in (cookies set); redirects to next.", redirect: true}},
		errs:    []codes{errs(400, "missing_field", "invalid_code")}},
	"auth.mcp.initiate": {tag: tagConnections, summary: "Start an MCP provider's OAuth flow", guard: guardPlatform, floor: apikey.Admin,
		body: mcpInitiateBody{}, bodyOptional: true, required: []string{"provider"},
		replies: []reply{ok(200, "The provider's authorization URL, for the admin's browser.", mcpInitiateResponse{})},
		errs:    []codes{missingField}},
	"auth.mcp.callback": {tag: tagConnections, summary: "The provider's OAuth redirect", guard: guardNone,
		params: []param{query("state", "The sealed state of initiate.", str).must(), query("code", "The provider's code.", str),
			query("error", "The provider's refusal.", str)},
		replies: []reply{{status: 302, desc: "To /dashboard/connections with provider and status (connected, or error and reason).", redirect: true}},
		errs:    []codes{errs(400, "missing_field", "invalid_state")}},
	"user.me": {tag: tagUser, summary: "The caller", guard: guardPlatform,
		replies: []reply{ok(200, "The user (or key) and their workspace memberships.", meResponse{})}},

	"billing.balance": {tag: tagBilling, summary: "Credit balance", guard: guardKey,
		replies: []reply{ok(200, "The organization's spendable balance (1,000 credits = 1 USD).", balanceResponse{})}},
	"billing.checkout": {tag: tagBilling, summary: "Buy credits", guard: guardKeyOnly, floor: apikey.Admin, body: checkoutBody{}, bodyOptional: true,
		replies: []reply{ok(200, "The processor's checkout page.", billingPageResponse{})},
		errs:    []codes{errs(400, "invalid_pack", "invalid_custom_amount"), errs(503, "billing_unavailable")}},
	"billing.subscribe": {tag: tagBilling, summary: "Subscribe to a plan", guard: guardPlatform, floor: apikey.Admin, body: subscribeBody{}, bodyOptional: true,
		replies: []reply{ok(200, "The processor's checkout page.", billingPageResponse{})},
		errs:    []codes{errs(400, "invalid_tier", "invalid_interval"), errs(409, "already_subscribed"), errs(503, "billing_unavailable")}},
	"billing.portal": {tag: tagBilling, summary: "Open the billing portal", guard: guardPlatform, floor: apikey.Admin, readsBody: true,
		replies: []reply{ok(200, "The processor's portal page.", billingPageResponse{})},
		errs:    []codes{errs(400, "no_billing_account"), errs(503, "billing_unavailable")}},
	"billing.webhook": {tag: tagBilling, summary: "The payment processor's events", guard: guardSignature,
		params:  []param{header("Stripe-Signature", "t=...,v1=... over the raw body.").must()},
		body:    map[string]any{},
		replies: []reply{ok(200, "Applied, or of a type the service does not read.", webhookResponse{})},
		errs:    []codes{errs(400, "invalid_signature"), errs(503, "billing_unavailable")}},
	"billing.auto_reload": {tag: tagBilling, summary: "Auto-reload configuration", guard: guardPlatform,
		replies: []reply{ok(200, "The configuration.", autoReloadBody{})}},
	"billing.auto_reload_update": {tag: tagBilling, summary: "Configure auto-reload", guard: guardPlatform, floor: apikey.Admin,
		body: autoReloadPut{}, required: []string{"enabled"},
		replies: []reply{ok(200, "The configuration.", autoReloadBody{})},
		errs:    []codes{errs(503, "billing_unavailable")}},

	"notifications.list": {tag: tagNotifications, summary: "List notifications", guard: guardPlatform,
		params: []param{query("unread_only", "true lists the unread only.", boolStr), limitParam(50, "20"),
			query("cursor", "next_cursor of the previous page.", str)},
		replies: []reply{ok(200, "A page of notifications, newest first.", notificationsResponse{})},
		errs:    []codes{errs(400, "invalid_body")}},
	"notifications.count": {tag: tagNotifications, summary: "Count unread notifications", guard: guardPlatform,
		replies: []reply{ok(200, "The unread count.", notificationCountResponse{})}},
	"notifications.read": {tag: tagNotifications, summary: "Mark notifications read", guard: guardPlatform, body: notificationsReadBody{},
		replies: []reply{ok(200, "How many were marked.", notificationsReadResponse{})}},

	"data.delete_requests": {tag: tagDataDeletion, summary: "List deletion requests", guard: guardPlatform, floor: apikey.Owner,
		replies: []reply{ok(200, "The organization's deletion requests, newest first.", deletionRequestsResponse{})}},
	"data.delete_request": {tag: tagDataDeletion, summary: "Request the deletion of all data", guard: guardPlatform, floor: apikey.Owner, readsBody: true,
		replies: []reply{ok(202, "The request and its confirmation token (the caller's pending request when asked again within 10 minutes).", deletionRequestCreated{})},
		errs:    []codes{errs(409, "deletion_already_pending"), errs(429, "deletion_rate_limited")}},
	"data.confirm_deletion": {tag: tagDataDeletion, summary: "Confirm a deletion request", guard: guardPlatform, floor: apikey.Owner,
		body: confirmDeletionBody{}, required: []string{"request_id", "confirmation_token"},
		replies: []reply{ok(200, "Confirmed: the organization's keys and sessions stopped working and its data was erased (status completed), or is being erased (status erasing).", deletionConfirmedResponse{})},
		errs:    []codes{missingField, errs(404, "invalid_deletion_request"), errs(500, "deletion_failed")}},

	"workspaces.list": {tag: tagWorkspaces, summary: "List workspaces", guard: guardPlatform,
		params:  []param{query("include_archived", "true lists archived workspaces too.", boolStr)},
		replies: []reply{ok(200, "The workspaces the caller may act in.", workspacesResponse{})},
		errs:    []codes{errs(400, "invalid_body")}},
	"workspaces.create": {tag: tagWorkspaces, summary: "Create a workspace", guard: guardPlatform, body: nameBody{}, required: []string{"name"},
		replies: []reply{ok(201, "The workspace.", workspaceBody{})},
		errs:    []codes{missingField, errs(403, "tier_required", "workspace_limit_reached")}},
	"workspaces.get": {tag: tagWorkspaces, summary: "A workspace", guard: guardWorkspace,
		replies: []reply{ok(200, "The workspace.", workspaceBody{})}},
	"workspaces.rename": {tag: tagWorkspaces, summary: "Rename a workspace", guard: guardWorkspace, floor: apikey.Admin,
		body: nameBody{}, required: []string{"name"},
		replies: []reply{ok(200, "The workspace (its slug unchanged).", workspaceBody{})}, errs: []codes{missingField}},
	"workspaces.archive": {tag: tagWorkspaces, summary: "Archive a workspace", guard: guardWorkspace, floor: apikey.Admin,
		replies: []reply{ok(200, "Archived.", successResponse{})}},
	"workspaces.restore": {tag: tagWorkspaces, summary: "Restore an archived workspace", guard: guardWorkspace, floor: apikey.Owner, readsBody: true,
		replies: []reply{ok(200, "Active again.", restoreResponse{})},
		errs:    []codes{errs(400, "not_archived"), errs(403, "tier_required")}},

	"workspaces.members.list": {tag: tagMembers, summary: "List members", guard: guardWorkspace,
		replies: []reply{ok(200, "Users and API keys with their roles.", membersResponse{})}},
	"workspaces.members.add": {tag: tagMembers, summary: "Add a member", guard: guardWorkspace, floor: apikey.Admin,
		body: addMemberBody{}, required: []string{"email", "role"},
		replies: []reply{ok(201, "A user with an account joined (status added), or an invite was mailed (status invited).", inviteBody{})},
		errs:    append([]codes{missingField}, membershipRefusals...)},
	"workspaces.members.role": {tag: tagMembers, summary: "Change a member's role", guard: guardWorkspace, floor: apikey.Owner,
		body: roleBody{}, required: []string{"role"},
		replies: []reply{ok(200, "The new role.", memberRoleResponse{})},
		errs:    append([]codes{missingField}, membershipRefusals...)},
	"workspaces.members.remove": {tag: tagMembers, summary: "Remove a member", guard: guardWorkspace, floor: apikey.Admin,
		replies: []reply{ok(200, "Removed.", successResponse{})}, errs: membershipRefusals},
	"invites.accept": {tag: tagMembers, summary: "Accept an invite", guard: guardSession, body: acceptBody{}, required: []string{"token"},
		replies: []reply{ok(200, "The workspace joined.", inviteAcceptedResponse{})},
		errs:    append([]codes{missingField, errs(404, "invite_not_found"), errs(410, "invite_expired")}, membershipRefusals...)},
	"invites.preview": {tag: tagMembers, summary: "Preview an invite", guard: guardNone, body: invitePreviewBody{}, required: []string{"token"},
		note: "The token goes in the body, never in the URL. Nothing is written: the invite stays unused. Only refusals count toward a limit of " +
			"20 per client address in 15 minutes.",
		replies: []reply{ok(200, "The workspace, the role, who invited and until when: the invite can be accepted now.", invitePreviewResponse{})},
		errs: []codes{missingField, errs(400, "invalid_body"), errs(404, "invite_not_found"), errs(410, "invite_expired"),
			errs(402, "member_limit_reached"), errs(429, "rate_limited")}},
	"workspaces.invites.create": {tag: tagMembers, summary: "Create an invite link", guard: guardWorkspace, floor: apikey.Admin,
		body: createLinkBody{}, required: []string{"role"},
		replies: []reply{ok(201, "The link (its token is the invite).", inviteLinkCreated{})},
		errs:    append([]codes{missingField}, membershipRefusals...)},
	"workspaces.invites.list": {tag: tagMembers, summary: "List invite links", guard: guardWorkspace, floor: apikey.Admin,
		replies: []reply{ok(200, "The links not revoked, newest first.", inviteLinksResponse{})}},
	"workspaces.invites.revoke": {tag: tagMembers, summary: "Revoke an invite link", guard: guardWorkspace, floor: apikey.Admin,
		replies: []reply{ok(200, "Revoked.", okResponse{})}},

	"workspaces.keys.list": {tag: tagWorkspaceKeys, summary: "List the workspace's API keys", guard: guardWorkspace, floor: apikey.Member,
		replies: []reply{ok(200, "The keys (never the raw key).", workspaceKeysResponse{})}},
	"workspaces.keys.create": {tag: tagWorkspaceKeys, summary: "Create an API key", guard: guardWorkspace, floor: apikey.Admin,
		body: createWorkspaceKeyBody{}, bodyOptional: true,
		replies: []reply{ok(201, "The key, shown this once.", workspaceKeyCreated{})},
		errs:    append([]codes{errs(402, "key_limit_reached")}, membershipRefusals...)},
	"workspaces.keys.revoke": {tag: tagWorkspaceKeys, summary: "Revoke an API key", guard: guardWorkspace, floor: apikey.Admin,
		replies: []reply{ok(200, "Refused from the next request on.", successResponse{})}},

	"workspaces.folders.list": {tag: tagFolders, summary: "List folders", guard: guardWorkspace,
		replies: []reply{ok(200, "The folders by name.", foldersResponse{})}},
	"workspaces.folders.create": {tag: tagFolders, summary: "Create a folder", guard: guardWorkspace, floor: apikey.Member,
		body: nameBody{}, required: []string{"name"},
		replies: []reply{ok(201, "The folder.", folderBody{})}, errs: []codes{missingField, errs(409, "folder_name_taken")}},
	"workspaces.folders.rename": {tag: tagFolders, summary: "Rename a folder", guard: guardWorkspace, floor: apikey.Member,
		body: nameBody{}, required: []string{"name"},
		replies: []reply{ok(200, "The folder.", folderBody{})}, errs: []codes{missingField, errs(409, "folder_name_taken")}},
	"workspaces.folders.delete": {tag: tagFolders, summary: "Delete a folder", guard: guardWorkspace, floor: apikey.Member, readsBody: true,
		replies: []reply{ok(200, "Deleted; its workflows are in no folder.", successResponse{})}, errs: []codes{archived}},
	"workspaces.folders.workflows.add": {tag: tagFolders, summary: "File workflows into a folder", guard: guardWorkspace, floor: apikey.Member,
		body: moveBody{}, required: []string{"workflow_ids"},
		replies: []reply{ok(200, "The workflows now in the folder.", folderWorkflowsResponse{})}, errs: []codes{missingField}},
	"workspaces.folders.workflows.remove": {tag: tagFolders, summary: "Take a workflow out of a folder", guard: guardWorkspace, floor: apikey.Member,
		readsBody: true, replies: []reply{ok(200, "The workflow is in no folder.", successResponse{})}},

	"workspaces.audit_log": {tag: tagSettings, summary: "The audit log", guard: guardWorkspace, floor: apikey.Admin,
		params: []param{limitParam(100, "50"), query("cursor", "next_cursor of the previous page.", str), query("action", "Only this action.", str),
			query("actor", "Only this actor's id.", str), query("resource_type", "Only this resource type.", str)},
		replies: []reply{ok(200, "Security and admin events, newest first.", auditLogResponse{})},
		errs:    []codes{errs(400, "invalid_body")}},
	"workspaces.budget.get": {tag: tagSettings, summary: "The monthly credit budget", guard: guardWorkspace,
		replies: []reply{ok(200, "The budget and this month's spend.", budgetBody{})}},
	"workspaces.budget.set": {tag: tagSettings, summary: "Set the monthly credit budget", guard: guardWorkspace, floor: apikey.Admin,
		body: budgetPutBody{}, required: []string{"monthly_credit_budget"},
		replies: []reply{ok(200, "The budget.", budgetSetBody{})}, errs: []codes{missingField, errs(403, "tier_required")}},
	"workspaces.llm_policy.get": {tag: tagSettings, summary: "The model policy", guard: guardWorkspace,
		replies: []reply{ok(200, "The policy.", llmPolicyBody{})}, errs: []codes{errs(403, "tier_required")}},
	"workspaces.llm_policy.set": {tag: tagSettings, summary: "Set the model policy", guard: guardWorkspace, floor: apikey.Admin,
		body: llmPolicyPutBody{}, required: []string{"allowed_models"},
		replies: []reply{ok(200, "The policy.", llmPolicyBody{})}, errs: []codes{missingField, errs(403, "tier_required")}},

	"workspaces.webhooks.list": {tag: tagHooks, summary: "List event webhooks", guard: guardWorkspace, floor: apikey.Member,
		replies: []reply{ok(200, "The webhooks.", webhooksResponse{})}, errs: []codes{errs(403, "tier_required")}},
	"workspaces.webhooks.create": {tag: tagHooks, summary: "Create an event webhook", guard: guardWorkspace, floor: apikey.Admin,
		body: webhookSettingsBody{}, required: []string{"url", "events"},
		replies: []reply{ok(201, "The webhook and its secret, shown this once.", webhookBody{})}, errs: []codes{errs(403, "tier_required")}},
	"workspaces.webhooks.update": {tag: tagHooks, summary: "Change an event webhook", guard: guardWorkspace, floor: apikey.Admin,
		body: webhookSettingsBody{}, replies: []reply{ok(200, "The webhook, without its secret.", webhookBody{})},
		errs: []codes{errs(403, "tier_required"), errs(404, "not_found")}},
	"workspaces.webhooks.delete": {tag: tagHooks, summary: "Delete an event webhook", guard: guardWorkspace, floor: apikey.Admin, readsBody: true,
		replies: []reply{ok(200, "Deleted.", okResponse{})}, errs: []codes{errs(403, "tier_required")}},
	"workspaces.webhooks.test": {tag: tagHooks, summary: "Send a test delivery", guard: guardWorkspace, floor: apikey.Admin, readsBody: true,
		replies: []reply{ok(200, "Whether it was delivered, and the receiver's status code (0: no answer).", webhookTestResponse{})},
		errs:    []codes{errs(403, "tier_required")}},
	"workspaces.webhooks.verify": {tag: tagHooks, summary: "Check a delivery's signature", guard: guardWorkspace, floor: apikey.Member,
		body: verifyBody{}, required: []string{"payload", "signature"},
		replies: []reply{ok(200, "Whether the signature verifies the payload.", webhookVerifyResponse{})},
		errs:    []codes{errs(403, "tier_required")}},
	"workspaces.webhooks.deliveries": {tag: tagHooks, summary: "List a webhook's deliveries", guard: guardWorkspace, floor: apikey.Member,
		params:  []param{limitParam(100, "20"), query("cursor", "next_cursor of the previous page.", str)},
		replies: []reply{ok(200, "The webhook's deliveries, newest first, each with every attempt.", webhookDeliveriesResponse{})},
		errs:    []codes{errs(400, "invalid_body"), errs(403, "tier_required"), errs(404, "not_found")}},
	"workspaces.webhooks.rotate_secret": {tag: tagHooks, summary: "Rotate the signing secret", guard: guardWorkspace, floor: apikey.Admin,
		body: rotateSecretBody{}, bodyOptional: true,
		replies: []reply{ok(200, "The new secret, shown this once; the previous one signs beside it until previous_secret_expires_at.", webhookSecretResponse{})},
		errs:    []codes{errs(403, "tier_required"), errs(404, "not_found")}},
}
