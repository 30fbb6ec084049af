package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/deletion"
	"svc/projections"
)

// defaultErasureWait is how long DELETE /api/data/confirm-deletion waits
// for the erasure it started before it answers that it continues.
const defaultErasureWait = 25 * time.Second

// dataDeletionRoutes registers spec B's data deletion: the owner's (a key
// or a session), since it erases everything every other role works with.
func (s *Server) dataDeletionRoutes(r *mux.Router) {
	r.Handle("/api/data/delete-request", s.platform(apikey.Owner, s.listDeletionRequests)).Methods(http.MethodGet).Name("data.delete_requests")
	r.Handle("/api/data/delete-request", s.platform(apikey.Owner, s.requestDeletion)).Methods(http.MethodPost).Name("data.delete_request")
	r.Handle("/api/data/confirm-deletion", s.platform(apikey.Owner, s.confirmDeletion)).Methods(http.MethodDelete).Name("data.confirm_deletion")
}

// affectedData is what a confirmed request erases (POST's affected_data).
var affectedData = []string{
	"the organization, its settings, subscription state and billing customer link",
	"every workspace, its members, invites, budgets, model policies and folders",
	"every API key and the sessions of its users",
	"users who belong to no other organization (users who do keep their accounts)",
	"every workflow: task descriptions, plans, deliverables, reviews and webhook deliveries",
	"credits, charges, purchases and auto-reload",
	"notifications, the audit log, workspace webhooks and MCP connections",
	"the event log of all of the above",
}

// deletionRequestCreated is the answer of POST /api/data/delete-request
// (spec B; expires_at beyond it).
type deletionRequestCreated struct {
	RequestID         string    `json:"request_id"`
	ConfirmationToken string    `json:"confirmation_token"`
	Status            string    `json:"status"`
	RequestedAt       time.Time `json:"requested_at"`
	ExpiresAt         time.Time `json:"expires_at"`
	Warning           string    `json:"warning"`
	AffectedData      []string  `json:"affected_data"`
	NextStep          string    `json:"next_step"`
}

// deletionLogEntry is a step of a deletion request's deletion_log.
type deletionLogEntry struct {
	Step  string    `json:"step"`
	Count int64     `json:"count"`
	At    time.Time `json:"at"`
}

// deletionRequestBody is the Deletion request resource (spec B;
// expires_at beyond it).
type deletionRequestBody struct {
	ID            string             `json:"id"`
	Status        string             `json:"status"`
	RequestedAt   time.Time          `json:"requested_at"`
	ExpiresAt     *time.Time         `json:"expires_at"`
	SoftDeletedAt *time.Time         `json:"soft_deleted_at"`
	HardDeletedAt *time.Time         `json:"hard_deleted_at"`
	CompletedAt   *time.Time         `json:"completed_at"`
	DeletionLog   []deletionLogEntry `json:"deletion_log"`
	Error         *string            `json:"error"`
}

// deletionRequestsResponse is the answer of GET /api/data/delete-request.
type deletionRequestsResponse struct {
	Requests []deletionRequestBody `json:"requests"`
}

// confirmDeletionBody is DELETE /api/data/confirm-deletion's body.
type confirmDeletionBody struct {
	RequestID         *string `json:"request_id"`
	ConfirmationToken *string `json:"confirmation_token"`
}

// deletionConfirmedResponse is the answer of DELETE
// /api/data/confirm-deletion (spec B; status beyond it: completed, or
// erasing when the erasure goes on in the background).
type deletionConfirmedResponse struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

// listDeletionRequests is GET /api/data/delete-request: the
// organization's requests, newest first.
func (s *Server) listDeletionRequests(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, _ := principalOf(ctx)
	rows, err := s.queries.DeletionRequests(ctx, p.OrgID)
	if err != nil {
		return err
	}
	out := deletionRequestsResponse{Requests: make([]deletionRequestBody, 0, len(rows))}
	for _, d := range rows {
		out.Requests = append(out.Requests, deletionBody(d))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func deletionBody(d projections.DeletionRow) deletionRequestBody {
	utc := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		u := t.UTC()
		return &u
	}
	b := deletionRequestBody{ID: d.ID, Status: d.Status, RequestedAt: d.RequestedAt.UTC(), ExpiresAt: utc(d.ExpiresAt),
		SoftDeletedAt: utc(d.SoftDeletedAt), HardDeletedAt: utc(d.HardDeletedAt), CompletedAt: utc(d.CompletedAt),
		DeletionLog: make([]deletionLogEntry, 0, len(d.Log)), Error: d.Error}
	for _, l := range d.Log {
		b.DeletionLog = append(b.DeletionLog, deletionLogEntry{Step: l.Step, Count: l.Count, At: l.At.UTC()})
	}
	return b
}

// requestDeletion is POST /api/data/delete-request: a new request and its
// confirmation token, or the caller's pending one asked again within
// deletion.ReplayWindow.
func (s *Server) requestDeletion(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(w, r); err != nil {
		return err
	}
	ctx := r.Context()
	p, _ := principalOf(ctx)
	res, err := s.commands.RequestDeletion.Handle(ctx, commands.RequestDeletion{OrgID: p.OrgID, By: p.Actor()})
	var refused *deletion.Refusal
	switch {
	case errors.As(err, &refused) && errors.Is(err, deletion.ErrAlreadyPending):
		return newError(http.StatusConflict, "deletion_already_pending",
			"A deletion request of this organization is already pending; confirm it, or let it expire.").
			withDetail("pending_request_id", refused.PendingID).withDetail("expires_at", refused.Until.UTC())
	case errors.As(err, &refused) && errors.Is(err, deletion.ErrRateLimited):
		secs := max(int(time.Until(refused.Until).Round(time.Second)/time.Second), 1)
		e := newError(http.StatusTooManyRequests, "deletion_rate_limited",
			"An organization may make "+strconv.Itoa(deletion.DailyLimit)+" deletion requests per UTC day.").
			withFix("Retry after midnight UTC.").
			withDetail("limit", deletion.DailyLimit).withDetail("retry_after_seconds", secs).withRetryAfterSeconds(secs)
		e.Headers = map[string]string{"Retry-After": strconv.Itoa(secs)}
		return e
	case err != nil:
		return err
	}
	writeJSON(w, http.StatusAccepted, deletionRequestCreated{RequestID: res.RequestID, ConfirmationToken: res.Token,
		Status: deletion.StatusPending, RequestedAt: res.RequestedAt.UTC(), ExpiresAt: res.ExpiresAt.UTC(),
		Warning: "Confirming this request permanently deletes all of this organization's data; it cannot be undone. " +
			"From the confirmation on, every API key and session of the organization stops working.",
		AffectedData: affectedData,
		NextStep: "Send DELETE /api/data/confirm-deletion with request_id and confirmation_token before " +
			res.ExpiresAt.UTC().Format(time.RFC3339) + "."})
	return nil
}

// confirmDeletion is DELETE /api/data/confirm-deletion: the request's
// token confirms it; the erasure runs and the answer waits for it
// (bounded).
func (s *Server) confirmDeletion(w http.ResponseWriter, r *http.Request) error {
	var body confirmDeletionBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	switch {
	case body.RequestID == nil || *body.RequestID == "":
		return errMissingField("request_id")
	case body.ConfirmationToken == nil || *body.ConfirmationToken == "":
		return errMissingField("confirmation_token")
	}
	ctx := r.Context()
	p, _ := principalOf(ctx)
	res, err := s.commands.ConfirmDeletion.Handle(ctx, commands.ConfirmDeletion{OrgID: p.OrgID, RequestID: *body.RequestID,
		Token: *body.ConfirmationToken, By: p.Actor()})
	switch {
	case errors.Is(err, deletion.ErrInvalidRequest):
		return newError(http.StatusNotFound, "invalid_deletion_request",
			"No pending deletion request of this organization has this request_id and confirmation_token (it may have expired or been used).")
	case err != nil:
		return err
	}
	out, err := s.queries.AwaitErasure(ctx, p.OrgID, res.RequestID, s.erasureWait())
	switch {
	case err != nil:
		return err
	case out.Failed:
		return newError(http.StatusInternalServerError, "deletion_failed",
			"The deletion of request "+res.RequestID+" stopped part way; it is retried automatically. Contact support with this request id if it does not complete.").
			withDetail("deletion_request_id", res.RequestID)
	case out.Completed:
		writeJSON(w, http.StatusOK, deletionConfirmedResponse{OK: true, Status: deletion.StatusCompleted,
			Message: "All of the organization's data was permanently deleted; request logs were anonymized."})
	default:
		writeJSON(w, http.StatusOK, deletionConfirmedResponse{OK: true, Status: deletion.StatusErasing,
			Message: "Deletion confirmed: every key and session of the organization stopped working; the erasure of its data continues and completes shortly."})
	}
	return nil
}

func (s *Server) erasureWait() time.Duration {
	if s.cfg.ErasureWait > 0 {
		return s.cfg.ErasureWait
	}
	return defaultErasureWait
}
