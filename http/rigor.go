package httpapi

import (
	"errors"
	"net/http"

	"svc/adapters/llm"
	"svc/commands"
	"svc/domain/catalog"
	"svc/domain/credit"
	"svc/domain/enhance"
	"svc/projections"
)

// taskTypes is GET /api/rigor/task-types.
func (s *Server) taskTypes(w http.ResponseWriter, r *http.Request) error {
	types := s.planner.Catalog().TaskTypes()
	out := make([]map[string]any, 0, len(types))
	for _, t := range types {
		out = append(out, map[string]any{"id": t.ID, "label": t.Label, "shape": t.Shape, "capability": t.Capability, "category": t.Category})
	}
	writeJSON(w, http.StatusOK, map[string]any{"task_types": out})
	return nil
}

// templates is GET /api/rigor/templates?task_type=&category=.
func (s *Server) templates(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	taskType, category := q.Get("task_type"), q.Get("category")
	out := []catalog.Template{}
	for _, t := range s.planner.Catalog().Templates() {
		if taskType != "" && t.TaskType != taskType {
			continue
		}
		if category != "" && string(t.Category) != category {
			continue
		}
		out = append(out, t)
	}
	writeJSON(w, http.StatusOK, map[string]any{"templates": out})
	return nil
}

type enhanceBody struct {
	TaskDescription *string `json:"task_description"`
	TaskType        string  `json:"task_type"`
	Tier            string  `json:"tier"`
}

// enhance is POST /api/rigor/enhance: the deterministic tier is public.
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
	suggestions := res.Suggestions
	if suggestions == nil {
		suggestions = []string{}
	}
	out := map[string]any{"ok": true, "request_id": requestID(r.Context()), "score": res.Score,
		"suggestions": suggestions, "missing": res.Missing, "credits_used": 0, "credits_remaining": nil}
	if authed && body.Tier != "llm" { // the llm tier's charge reports the balance itself
		if b, err := projections.Balance(r.Context(), s.store.Pool(), p.OrgID); err == nil {
			out["credits_remaining"] = b.Balance
		}
	}
	if body.Tier == "llm" {
		// The LLM port writes the rewrite (the offline writer by default);
		// the charge follows a rewrite that succeeded, so a failed call
		// costs nothing.
		if bal, err := projections.Balance(r.Context(), s.store.Pool(), p.OrgID); err == nil && bal.Balance < enhanceLLMCredits {
			return errEnhanceCredits(bal.Balance)
		}
		resp, err := s.llm.Complete(r.Context(), llm.Request{Kind: llm.KindEnhance, Tier: 2, Description: *body.TaskDescription,
			TaskType: body.TaskType})
		if err != nil {
			return &wrapped{newError(http.StatusInternalServerError, "enhance_error", "The description could not be enhanced; nothing was charged.").
				withFix("Retry, or use the free deterministic tier."), err}
		}
		enhanced, err := llm.ParseEnhance(resp.Text)
		if err != nil {
			return &wrapped{newError(http.StatusInternalServerError, "enhance_error", "The description could not be enhanced; nothing was charged."), err}
		}
		charged, err := s.chargeCredits.Handle(r.Context(), commands.ChargeCredits{Charge: credit.Charged{
			OrgID: p.OrgID, Amount: enhanceLLMCredits, Reason: "enhance_llm", KeyID: p.KeyID}})
		if errors.Is(err, credit.ErrInsufficient) {
			bal, _ := projections.Balance(r.Context(), s.store.Pool(), p.OrgID)
			return errEnhanceCredits(bal.Balance)
		}
		if err != nil {
			return &wrapped{newError(http.StatusInternalServerError, "enhance_error", "The description could not be enhanced; nothing was charged."), err}
		}
		out["enhanced"] = enhanced
		out["credits_used"] = enhanceLLMCredits
		out["credits_remaining"] = charged.Balance
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// enhanceLLMCredits is the price of the llm tier of enhance.
const enhanceLLMCredits = 270

func errEnhanceCredits(balance int64) error {
	return newError(http.StatusPaymentRequired, "insufficient_credits", "The llm tier of enhance costs 270 credits; the balance is lower.").
		withFix("Top up credits, or use the free deterministic tier.").
		withDetail("required_credits", enhanceLLMCredits).withDetail("balance", balance)
}
