package commands

import (
	"context"
	"log/slog"
	"time"

	"svc/adapters/llm"
	"svc/adapters/mail"
	"svc/domain/planning"
)

// Ports are what the API's command handlers need beyond the repositories.
type Ports struct {
	// Planner classifies tasks and builds plans (required).
	Planner *planning.Planner
	// Sealer encrypts the webhook secrets execute creates, NewSecret
	// makes them (both required).
	Sealer    Sealer
	NewSecret func() string
	// Connections checks plans' context servers (optional: left as given).
	Connections ConnectionChecker
	// CostHistory gives plans their cost.range (optional).
	CostHistory CostHistory
	// LLM writes enhance's llm-tier rewrites (required).
	LLM llm.Provider
	// Mail sends the signup's verification link, under BaseURL (optional:
	// without it no mail is sent).
	Mail    mail.Sender
	BaseURL string
	// InteractiveIdle is how long an interactive session may sit idle
	// (0: spec A's 30 minutes).
	InteractiveIdle time.Duration
	// Log receives one record per command (default: slog's default).
	Log *slog.Logger
	// McpOAuth runs the OAuth flows of MCP connections (optional: without
	// it no provider is available); their tokens are sealed by Sealer.
	McpOAuth McpOAuth
	// Payments is the payment processor (optional: without it the billing
	// commands answer payment.ErrUnavailable).
	Payments PaymentProcessor
	// WebhookSender sends the workspace webhooks' test deliveries
	// (optional: webhook.NewSender(nil), private addresses refused); their
	// secrets are opened by Sealer when it is an Opener.
	WebhookSender WebhookSender
	// Consistency makes each command's answer, and the caller's reads
	// after it, reflect its events (projections.Queries); nil skips the
	// wait (tests without read models).
	Consistency Waiter
	// Erasures starts a confirmed data deletion in this process at once
	// (optional: the erasure runner finds it within its poll);
	// DeletionTTL is how long a deletion request may be confirmed (0:
	// deletion.DefaultTTL).
	Erasures    ErasureKicker
	DeletionTTL time.Duration
	// ContextServers reaches the servers of context-server connections
	// (mcpctx.Gateway; without it their commands answer ErrNoGateway);
	// their credentials are sealed by Sealer. ConnectionsDisabled: the
	// connection gateway is off (SVC_CONNECTIONS=off), and plans do not
	// check stored connections.
	ContextServers      ContextServers
	ConnectionsDisabled bool
}

// Handlers are the command handlers the API runs, one per command, each
// decorated WithLogging. Build them once per process (NewHandlers) over
// the same Repositories the workers use, so fold caches are shared.
type Handlers struct {
	// One field per command, named after it.
	CreateOrganization Handler[CreateOrganization, OrganizationCreated]
	VerifyEmail        Handler[VerifyEmail, EmailVerified]
	EnhanceTask        Handler[EnhanceTask, TaskEnhanced]
	PlanWorkflow       Handler[PlanWorkflow, WorkflowsPlanned]
	ExecuteWorkflow    Handler[ExecuteWorkflow, WorkflowQueued]
	ExecuteWorkflows   Handler[ExecuteWorkflows, WorkflowsQueued]
	StepWorkflow       Handler[StepWorkflow, WorkflowStepped]
	ApproveWorkflow    Handler[ApproveWorkflow, WorkflowDecided]
	ResumeWorkflow     Handler[ResumeWorkflow, WorkflowResumed]
	CancelWorkflows    Handler[CancelWorkflows, WorkflowsCancelled]
	SignUp             Handler[SignUp, SignedUp]
	LogIn              Handler[LogIn, LoggedIn]
	LogOut             Handler[LogOut, LoggedOut]
	RefreshSession     Handler[RefreshSession, LoggedIn]
	UseAuthCode        Handler[UseAuthCode, LoggedIn]
	CreateWorkspace    Handler[CreateWorkspace, WorkspaceCreated]
	RenameWorkspace    Handler[RenameWorkspace, WorkspaceChanged]
	ArchiveWorkspace   Handler[ArchiveWorkspace, WorkspaceChanged]
	RestoreWorkspace   Handler[RestoreWorkspace, WorkspaceChanged]
	SetWorkspaceBudget Handler[SetWorkspaceBudget, WorkspaceChanged]
	AddMember          Handler[AddMember, MemberJoined]
	ChangeMemberRole   Handler[ChangeMemberRole, WorkspaceChanged]
	RemoveMember       Handler[RemoveMember, WorkspaceChanged]
	CreateWorkspaceKey Handler[CreateWorkspaceKey, WorkspaceKeyCreated]
	RevokeWorkspaceKey Handler[RevokeWorkspaceKey, WorkspaceChanged]
	CreateInvite       Handler[CreateInvite, InviteCreated]
	AcceptInvite       Handler[AcceptInvite, InviteAccepted]
	RevokeInvite       Handler[RevokeInvite, WorkspaceChanged]

	// A workspace's llm policy (set_llm_policy.go), and the models plans
	// route to, the names a policy may allow.
	SetLLMPolicy Handler[SetLLMPolicy, WorkspaceChanged]
	Models       planning.Models

	// Folders of a workspace and the workflows in them.
	CreateFolder     Handler[CreateFolder, FolderCreated]
	RenameFolder     Handler[RenameFolder, FolderChanged]
	DeleteFolder     Handler[DeleteFolder, FolderChanged]
	MoveWorkflows    Handler[MoveWorkflows, WorkflowsMoved]
	RemoveFromFolder Handler[RemoveFromFolder, FolderChanged]

	// MCP connections authorized with OAuth (spec B, Sessions).
	InitiateMcpConnection  Handler[InitiateMcpConnection, McpConnectionInitiated]
	AuthorizeMcpConnection Handler[AuthorizeMcpConnection, McpConnectionAuthorized]

	// Billing through the payment processor (spec B, Billing).
	CheckoutCredits     Handler[CheckoutCredits, BillingPage]
	StartSubscription   Handler[StartSubscription, BillingPage]
	OpenBillingPortal   Handler[OpenBillingPortal, BillingPage]
	ReceivePaymentEvent Handler[ReceivePaymentEvent, PaymentEventReceived]
	ConfigureAutoReload Handler[ConfigureAutoReload, AutoReloadConfigured]

	// In-app notifications (spec B, Notifications).
	MarkNotificationsRead Handler[MarkNotificationsRead, NotificationsMarked]

	// Data deletion (spec B): a request, and its confirmation, which
	// starts the erasure.
	RequestDeletion Handler[RequestDeletion, DeletionRequested]
	ConfirmDeletion Handler[ConfirmDeletion, DeletionConfirmed]

	// Workspace webhook endpoints (spec B, Workspace webhooks).
	CreateWebhookEndpoint  Handler[CreateWebhookEndpoint, WebhookEndpointCreated]
	UpdateWebhookEndpoint  Handler[UpdateWebhookEndpoint, WebhookEndpointChanged]
	DeleteWebhookEndpoint  Handler[DeleteWebhookEndpoint, WebhookEndpointChanged]
	TestWebhookEndpoint    Handler[TestWebhookEndpoint, WebhookEndpointTested]
	VerifyWebhookSignature Handler[VerifyWebhookSignature, WebhookSignatureVerified]
	RotateWebhookSecret    Handler[RotateWebhookSecret, WebhookSecretRotated]

	// Context-server connections (spec A, /api/rigor/connections).
	CreateConnection Handler[CreateConnection, ConnectionCreated]
	UpdateConnection Handler[UpdateConnection, ConnectionChanged]
	TestConnection   Handler[TestConnection, ConnectionTested]
	DeleteConnection Handler[DeleteConnection, ConnectionChanged]

	// DemoOrgs is the organization anonymous plans are made in
	// (demo_org.go).
	DemoOrgs *DemoOrgs

	background *Background
}

// NewHandlers returns the handlers over repos and p; a missing required
// port panics (a wiring mistake, found at start).
func NewHandlers(repos *Repositories, p Ports) *Handlers {
	log := p.Log
	if log == nil {
		log = slog.Default()
	}
	bg := &Background{}
	var signup []SignupOption
	var mailer *verificationMail
	if p.Mail != nil {
		signup = append(signup, WithVerificationMail(p.Mail, p.BaseURL, bg, log))
		mailer = &verificationMail{sender: p.Mail, baseURL: p.BaseURL, pending: bg, log: log}
	}
	planOpts := []PlanOption{WithConnectionChecker(p.Connections), WithCostHistory(p.CostHistory)}
	if !p.ConnectionsDisabled {
		planOpts = append(planOpts, WithStoredConnections(opener(p.Sealer)))
	}
	planner := NewPlanWorkflowHandler(repos, p.Planner, planOpts...)
	return &Handlers{
		CreateOrganization: ready(Handler[CreateOrganization, OrganizationCreated](NewCreateOrganizationHandler(repos, signup...)), log, p.Consistency),
		VerifyEmail:        ready(Handler[VerifyEmail, EmailVerified](NewVerifyEmailHandler(repos)), log, p.Consistency),
		EnhanceTask:        ready(Handler[EnhanceTask, TaskEnhanced](NewEnhanceTaskHandler(repos, p.LLM, WithEnhanceModels(p.Planner.Models()))), log, p.Consistency),
		PlanWorkflow:       ready(Handler[PlanWorkflow, WorkflowsPlanned](planner), log, p.Consistency),
		ExecuteWorkflow: ready(Handler[ExecuteWorkflow, WorkflowQueued](
			NewExecuteWorkflowHandler(repos, planner, p.Sealer, p.NewSecret)), log, p.Consistency),
		ExecuteWorkflows: ready(Handler[ExecuteWorkflows, WorkflowsQueued](NewExecuteWorkflowsHandler(repos,
			NewExecuteWorkflowHandler(repos, planner, p.Sealer, p.NewSecret))), log, p.Consistency),
		CreateWebhookEndpoint: ready(Handler[CreateWebhookEndpoint, WebhookEndpointCreated](
			NewCreateWebhookEndpointHandler(repos, p.Sealer, p.NewSecret)), log, p.Consistency),
		UpdateWebhookEndpoint: ready(Handler[UpdateWebhookEndpoint, WebhookEndpointChanged](
			NewUpdateWebhookEndpointHandler(repos)), log, p.Consistency),
		DeleteWebhookEndpoint: ready(Handler[DeleteWebhookEndpoint, WebhookEndpointChanged](
			NewDeleteWebhookEndpointHandler(repos)), log, p.Consistency),
		TestWebhookEndpoint: ready(Handler[TestWebhookEndpoint, WebhookEndpointTested](
			NewTestWebhookEndpointHandler(repos, opener(p.Sealer), p.WebhookSender)), log, p.Consistency),
		VerifyWebhookSignature: ready(Handler[VerifyWebhookSignature, WebhookSignatureVerified](
			NewVerifyWebhookSignatureHandler(repos, opener(p.Sealer))), log, p.Consistency),
		RotateWebhookSecret: ready(Handler[RotateWebhookSecret, WebhookSecretRotated](
			NewRotateWebhookSecretHandler(repos, p.Sealer, p.NewSecret)), log, p.Consistency),
		StepWorkflow:       ready(Handler[StepWorkflow, WorkflowStepped](NewStepWorkflowHandler(repos, p.InteractiveIdle)), log, p.Consistency),
		ApproveWorkflow:    ready(Handler[ApproveWorkflow, WorkflowDecided](NewApproveWorkflowHandler(repos)), log, p.Consistency),
		ResumeWorkflow:     ready(Handler[ResumeWorkflow, WorkflowResumed](NewResumeWorkflowHandler(repos)), log, p.Consistency),
		CancelWorkflows:    ready(Handler[CancelWorkflows, WorkflowsCancelled](NewCancelWorkflowsHandler(repos)), log, p.Consistency),
		SignUp:             ready(Handler[SignUp, SignedUp](NewSignUpHandler(repos, mailer)), log, p.Consistency),
		LogIn:              ready(Handler[LogIn, LoggedIn](NewLogInHandler(repos)), log, p.Consistency),
		LogOut:             ready(Handler[LogOut, LoggedOut](NewLogOutHandler(repos)), log, p.Consistency),
		RefreshSession:     ready(Handler[RefreshSession, LoggedIn](NewRefreshSessionHandler(repos)), log, p.Consistency),
		UseAuthCode:        ready(Handler[UseAuthCode, LoggedIn](NewUseAuthCodeHandler(repos)), log, p.Consistency),
		CreateInvite:       ready(Handler[CreateInvite, InviteCreated](NewCreateInviteHandler(repos, p.Sealer, mailer, p.BaseURL)), log, p.Consistency),
		AcceptInvite:       ready(Handler[AcceptInvite, InviteAccepted](NewAcceptInviteHandler(repos)), log, p.Consistency),
		RevokeInvite:       ready(Handler[RevokeInvite, WorkspaceChanged](NewRevokeInviteHandler(repos)), log, p.Consistency),
		SetLLMPolicy:       ready(Handler[SetLLMPolicy, WorkspaceChanged](NewSetLLMPolicyHandler(repos, p.Planner.Models())), log, p.Consistency),
		Models:             p.Planner.Models(),
		CreateWorkspace:    ready(Handler[CreateWorkspace, WorkspaceCreated](NewCreateWorkspaceHandler(repos)), log, p.Consistency),
		RenameWorkspace:    ready(Handler[RenameWorkspace, WorkspaceChanged](NewRenameWorkspaceHandler(repos)), log, p.Consistency),
		ArchiveWorkspace:   ready(Handler[ArchiveWorkspace, WorkspaceChanged](NewArchiveWorkspaceHandler(repos)), log, p.Consistency),
		RestoreWorkspace:   ready(Handler[RestoreWorkspace, WorkspaceChanged](NewRestoreWorkspaceHandler(repos)), log, p.Consistency),
		SetWorkspaceBudget: ready(Handler[SetWorkspaceBudget, WorkspaceChanged](NewSetWorkspaceBudgetHandler(repos)), log, p.Consistency),
		AddMember:          ready(Handler[AddMember, MemberJoined](NewAddMemberHandler(repos)), log, p.Consistency),
		ChangeMemberRole:   ready(Handler[ChangeMemberRole, WorkspaceChanged](NewChangeMemberRoleHandler(repos)), log, p.Consistency),
		RemoveMember:       ready(Handler[RemoveMember, WorkspaceChanged](NewRemoveMemberHandler(repos)), log, p.Consistency),
		CreateWorkspaceKey: ready(Handler[CreateWorkspaceKey, WorkspaceKeyCreated](NewCreateWorkspaceKeyHandler(repos)), log, p.Consistency),
		RevokeWorkspaceKey: ready(Handler[RevokeWorkspaceKey, WorkspaceChanged](NewRevokeWorkspaceKeyHandler(repos)), log, p.Consistency),
		background:         bg,
		DemoOrgs:           NewDemoOrgs(repos),
		CreateFolder:       ready(Handler[CreateFolder, FolderCreated](NewCreateFolderHandler(repos)), log, p.Consistency),
		RenameFolder:       ready(Handler[RenameFolder, FolderChanged](NewRenameFolderHandler(repos)), log, p.Consistency),
		DeleteFolder:       ready(Handler[DeleteFolder, FolderChanged](NewDeleteFolderHandler(repos)), log, p.Consistency),
		MoveWorkflows:      ready(Handler[MoveWorkflows, WorkflowsMoved](NewMoveWorkflowsHandler(repos)), log, p.Consistency),
		RemoveFromFolder:   ready(Handler[RemoveFromFolder, FolderChanged](NewRemoveFromFolderHandler(repos)), log, p.Consistency),
		InitiateMcpConnection: ready(Handler[InitiateMcpConnection, McpConnectionInitiated](
			NewInitiateMcpConnectionHandler(p.McpOAuth)), log, p.Consistency),
		AuthorizeMcpConnection: ready(Handler[AuthorizeMcpConnection, McpConnectionAuthorized](
			NewAuthorizeMcpConnectionHandler(repos, p.McpOAuth, p.Sealer)), log, p.Consistency),
		CheckoutCredits:     ready(Handler[CheckoutCredits, BillingPage](NewCheckoutCreditsHandler(repos, p.Payments)), log, p.Consistency),
		StartSubscription:   ready(Handler[StartSubscription, BillingPage](NewStartSubscriptionHandler(repos, p.Payments)), log, p.Consistency),
		OpenBillingPortal:   ready(Handler[OpenBillingPortal, BillingPage](NewOpenBillingPortalHandler(repos, p.Payments)), log, p.Consistency),
		ReceivePaymentEvent: ready(Handler[ReceivePaymentEvent, PaymentEventReceived](NewReceivePaymentEventHandler(repos, p.Payments)), log, p.Consistency),
		ConfigureAutoReload: ready(Handler[ConfigureAutoReload, AutoReloadConfigured](NewConfigureAutoReloadHandler(repos, p.Payments)), log, p.Consistency),
		MarkNotificationsRead: ready(Handler[MarkNotificationsRead, NotificationsMarked](
			NewMarkNotificationsReadHandler(repos)), log, p.Consistency),
		RequestDeletion: ready(Handler[RequestDeletion, DeletionRequested](
			NewRequestDeletionHandler(repos, p.Sealer, p.DeletionTTL)), log, p.Consistency),
		ConfirmDeletion: ready(Handler[ConfirmDeletion, DeletionConfirmed](
			NewConfirmDeletionHandler(repos, p.Erasures)), log, p.Consistency),
		CreateConnection: ready(Handler[CreateConnection, ConnectionCreated](
			NewCreateConnectionHandler(repos, p.Sealer, p.ContextServers)), log, p.Consistency),
		UpdateConnection: ready(Handler[UpdateConnection, ConnectionChanged](NewUpdateConnectionHandler(repos, p.Sealer)), log, p.Consistency),
		TestConnection: ready(Handler[TestConnection, ConnectionTested](
			NewTestConnectionHandler(repos, opener(p.Sealer), p.ContextServers)), log, p.Consistency),
		DeleteConnection: ready(Handler[DeleteConnection, ConnectionChanged](NewDeleteConnectionHandler(repos)), log, p.Consistency),
	}
}

// Wait blocks until the work the handlers started after their commits
// (verification mail) has finished, or ctx ends: the serve command calls
// it at shutdown, once the last request has been answered.
func (h *Handlers) Wait(ctx context.Context) error {
	if h.background == nil { // not built by NewHandlers: nothing started
		return nil
	}
	return h.background.Wait(ctx)
}

// ready decorates h as every API command is: one log record per command,
// then the read-your-writes wait of w.
func ready[C any, R any](h Handler[C, R], log *slog.Logger, w Waiter) Handler[C, R] {
	return WithReadYourWrites(WithLogging(h, log), w)
}

// opener is s when it can open what it seals, else nil.
func opener(s Sealer) Opener {
	o, _ := s.(Opener)
	return o
}
