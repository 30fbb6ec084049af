package httpapi

import (
	"errors"
	"net/http"

	"svc/commands"
	"svc/domain/catalog"
	"svc/domain/enhance"
)

// taskTypesResponse is the answer of GET /api/rigor/task-types.
type taskTypesResponse struct {
	TaskTypes []taskTypeEntry `json:"task_types"`
}

// taskTypeEntry is a task type as task-types lists it.
type taskTypeEntry struct {
	ID         string           `json:"id"`
	Label      string           `json:"label"`
	Shape      string           `json:"shape"`
	Capability string           `json:"capability"`
	Category   catalog.Category `json:"category"`
}

// taskTypes is GET /api/rigor/task-types.
func (s *Server) taskTypes(w http.ResponseWriter, r *http.Request) error {
	types := s.catalog.TaskTypes()
	out := make([]taskTypeEntry, 0, len(types))
	for _, t := range types {
		out = append(out, taskTypeEntry{ID: t.ID, Label: t.Label, Shape: t.Shape, Capability: t.Capability, Category: t.Category})
	}
	writeJSON(w, http.StatusOK, taskTypesResponse{TaskTypes: out})
	return nil
}

// templatesResponse is the answer of GET /api/rigor/templates.
type templatesResponse struct {
	Templates []catalog.Template `json:"templates"`
}

// templates is GET /api/rigor/templates?task_type=&category=.
func (s *Server) templates(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	taskType, category := q.Get("task_type"), q.Get("category")
	out := []catalog.Template{}
	for _, t := range s.catalog.Templates() {
		if taskType != "" && t.TaskType != taskType {
			continue
		}
		if category != "" && string(t.Category) != category {
			continue
		}
		out = append(out, t)
	}
	writeJSON(w, http.StatusOK, templatesResponse{Templates: out})
	return nil
}

type enhanceBody struct {
	TaskDescription *string `json:"task_description"`
	TaskType        string  `json:"task_type"`
	Tier            string  `json:"tier"`
}

// enhanceResponse is the answer of POST /api/rigor/enhance; Enhanced is
// the llm tier's rewrite.
type enhanceResponse struct {
	OK          bool     `json:"ok"`
	Score       int      `json:"score"`
	Suggestions []string `json:"suggestions"`
	Missing     []string `json:"missing"`
	Enhanced    string   `json:"enhanced,omitempty"`
	metered
}

// enhance is POST /api/rigor/enhance: the deterministic tier is public;
// the llm tier (a key, 270 credits) adds the LLM's rewrite.
func (s *Server) enhance(w http.ResponseWriter, r *http.Request) error {
	var body enhanceBody
	if err := decodeBody(w, r, &body, false); err != nil {
		return err
	}
	if body.TaskDescription == nil {
		return errMissingField("task_description")
	}
	switch body.Tier {
	case "", "deterministic", "llm":
	default:
		return errInvalidField("tier", "must be deterministic or llm")
	}
	p, authed := principalOf(r.Context())
	if body.Tier == "llm" && !authed {
		return newError(http.StatusUnauthorized, "missing_api_key", "The llm tier of enhance needs an API key (it costs 270 credits).").
			withFix("Send your key in the x-api-key header, or use the free deterministic tier.")
	}
	res, err := enhance.Assess(*body.TaskDescription, body.TaskType)
	switch {
	case errors.Is(err, enhance.ErrTooLong):
		return newError(http.StatusBadRequest, "input_too_long", "task_description is over 10,000 characters.").withDetail("max_length", enhance.MaxLength)
	case errors.Is(err, enhance.ErrEmpty):
		return errMissingField("task_description")
	case err != nil:
		return &wrapped{newError(http.StatusInternalServerError, "enhance_error", "The description could not be assessed."), err}
	}
	out := enhanceResponse{OK: true, Score: res.Score, Suggestions: orEmpty(res.Suggestions), Missing: orEmpty(res.Missing),
		metered: metered{RequestID: requestID(r.Context())}}
	switch {
	case body.Tier == "llm":
		done, err := s.commands.EnhanceTask.Handle(r.Context(), commands.EnhanceTask{OrgID: p.OrgID, KeyID: p.KeyID, WorkspaceID: p.WorkspaceID,
			Description: *body.TaskDescription, TaskType: body.TaskType})
		if err != nil {
			return enhanceError(err)
		}
		out.Enhanced, out.CreditsUsed, out.CreditsRemaining = done.Enhanced, done.Credits, &done.Balance
	case authed:
		if b, err := s.queries.Balance(r.Context(), p.OrgID); err == nil {
			out.CreditsRemaining = &b.Balance
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// enhanceError maps the llm tier's refusals: nothing was charged.
func enhanceError(err error) error {
	var credits *commands.InsufficientCreditsError
	failed := newError(http.StatusInternalServerError, "enhance_error", "The description could not be enhanced; nothing was charged.")
	if e := modelPolicyError(err); e != nil { // llm_policy.go
		return e
	}
	switch {
	case errors.As(err, &credits):
		return newError(http.StatusPaymentRequired, "insufficient_credits", "The llm tier of enhance costs 270 credits; the balance is lower.").
			withFix("Top up credits, or use the free deterministic tier.").
			withDetail("required_credits", commands.EnhanceCredits).withDetail("balance", credits.Balance)
	case errors.Is(err, commands.ErrEnhanceUnavailable):
		return &wrapped{failed.withFix("Retry, or use the free deterministic tier."), err}
	}
	return &wrapped{failed, err}
}

// orEmpty is list, or an empty list for nil (JSON [], never null).
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
