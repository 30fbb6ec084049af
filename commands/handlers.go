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
	// Consistency makes each command's answer, and the caller's reads
	// after it, reflect its events (projections.Queries); nil skips the
	// wait (tests without read models).
	Consistency Waiter
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
	if p.Mail != nil {
		signup = append(signup, WithVerificationMail(p.Mail, p.BaseURL, bg, log))
	}
	planner := NewPlanWorkflowHandler(repos, p.Planner, WithConnectionChecker(p.Connections), WithCostHistory(p.CostHistory))
	return &Handlers{
		CreateOrganization: ready(Handler[CreateOrganization, OrganizationCreated](NewCreateOrganizationHandler(repos, signup...)), log, p.Consistency),
		VerifyEmail:        ready(Handler[VerifyEmail, EmailVerified](NewVerifyEmailHandler(repos)), log, p.Consistency),
		EnhanceTask:        ready(Handler[EnhanceTask, TaskEnhanced](NewEnhanceTaskHandler(repos, p.LLM)), log, p.Consistency),
		PlanWorkflow:       ready(Handler[PlanWorkflow, WorkflowsPlanned](planner), log, p.Consistency),
		ExecuteWorkflow: ready(Handler[ExecuteWorkflow, WorkflowQueued](
			NewExecuteWorkflowHandler(repos, planner, p.Sealer, p.NewSecret)), log, p.Consistency),
		ExecuteWorkflows: ready(Handler[ExecuteWorkflows, WorkflowsQueued](NewExecuteWorkflowsHandler(repos,
			NewExecuteWorkflowHandler(repos, planner, p.Sealer, p.NewSecret))), log, p.Consistency),
		StepWorkflow:    ready(Handler[StepWorkflow, WorkflowStepped](NewStepWorkflowHandler(repos, p.InteractiveIdle)), log, p.Consistency),
		ApproveWorkflow: ready(Handler[ApproveWorkflow, WorkflowDecided](NewApproveWorkflowHandler(repos)), log, p.Consistency),
		ResumeWorkflow:  ready(Handler[ResumeWorkflow, WorkflowResumed](NewResumeWorkflowHandler(repos)), log, p.Consistency),
		CancelWorkflows: ready(Handler[CancelWorkflows, WorkflowsCancelled](NewCancelWorkflowsHandler(repos)), log, p.Consistency),
		background:      bg,
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
