package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// problem is an API refusal as a page shows it: a sentence for its code,
// the API's own message when it says more (which field, which limit),
// and for a server failure the request id to quote.
type problem struct {
	Status    int
	Code      string
	Sentence  string
	Detail    string
	Field     string
	RequestID string
	// Workflow is the workflow a refusal points to (duplicate_task's).
	Workflow string
}

// envelope is the API's error body.
type envelope struct {
	Error struct {
		Code      string         `json:"code"`
		Message   string         `json:"message"`
		RequestID string         `json:"request_id"`
		Details   map[string]any `json:"details"`
	} `json:"error"`
	RetryAfter        *int `json:"retry_after"`
	RetryAfterSeconds *int `json:"retry_after_seconds"`
}

// problemOf is the refusal of a reply of status 400 or more.
func problemOf(rep Reply) *problem {
	var e envelope
	_ = json.Unmarshal(rep.Body, &e)
	p := &problem{Status: rep.Status, Code: e.Error.Code, RequestID: e.Error.RequestID}
	if p.Code == "" {
		p.Code = "internal_error"
	}
	p.Sentence = sentence(p.Code)
	if f, ok := e.Error.Details["field"].(string); ok {
		p.Field = f
	}
	if id, ok := e.Error.Details["existing_workflow_id"].(string); ok {
		p.Workflow = id
	}
	switch {
	case detailed[p.Code]:
		p.Detail = e.Error.Message
	case p.Code == "rate_limit_exceeded" || p.Code == "rate_limited":
		if s := firstOf(e.RetryAfter, e.RetryAfterSeconds); s > 0 {
			p.Detail = fmt.Sprintf("Try again in %d seconds.", s)
		}
	}
	return p
}

func firstOf(vs ...*int) int {
	for _, v := range vs {
		if v != nil {
			return *v
		}
	}
	return 0
}

// failed reports whether rep is a refusal, as a problem.
func failed(rep Reply) (*problem, bool) {
	if rep.Status < http.StatusBadRequest {
		return nil, false
	}
	return problemOf(rep), true
}

// detailed codes name a field or a limit in their message: the page
// shows it beneath the sentence.
var detailed = map[string]bool{
	"invalid_body": true, "invalid_field": true, "missing_field": true, "input_too_long": true,
	"invalid_step_index": true, "invalid_language": true, "insufficient_credits": true,
	"workspace_budget_exceeded": true, "concurrent_limit_exceeded": true, "context_too_large": true,
	"model_not_allowed": true, "invalid_status": true, "tier_required": true, "duplicate_task": true,
}

// sentence is what a page says of an error code; the generic failure for
// a code it does not know.
func sentence(code string) string {
	if s, ok := sentences[code]; ok {
		return s
	}
	return sentences["internal_error"]
}

// Sentences lists the error codes the dashboard has a sentence for,
// sorted (the API's tests check it covers every code of the routes the
// dashboard calls).
func Sentences() []string {
	out := make([]string, 0, len(sentences))
	for c := range sentences {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// sentences are the error codes of the routes the dashboard calls, in
// the words of someone using it: each page area declares its own.
var sentences = merged(coreSentences, moneySentences, teamSentences, adminSentences)

// coreSentences are the codes of the sign-in and workflow pages.
var coreSentences = map[string]string{
	// signing in and up
	"invalid_credentials":      "The email or the password is wrong.",
	"email_already_registered": "An account with this email already exists. Log in instead, or use another address.",
	"signup_failed":            "Your account could not be created just now. Please try again in a moment.",
	"unauthorized":             "You are signed out. Log in to continue.",
	"missing_api_key":          "You are signed out. Log in to continue.",
	"invalid_api_key":          "You are signed out. Log in to continue.",
	"rate_limited":             "Too many attempts. Wait a little before trying again.",

	// roles, tiers, workspaces
	"forbidden":                "Your role in this workspace does not allow this.",
	"insufficient_permissions": "Your role in this workspace does not allow this.",
	"tier_required":            "This needs a paid plan (Pro or above).",
	"workspace_archived":       "This workspace is archived; restore it before running work in it.",
	"not_found":                "That workflow, folder or workspace does not exist, or is not yours to see.",
	"folder_name_taken":        "A folder with this name already exists in this workspace.",

	// connections
	"connection_limit_exceeded": "Your organization has 10 connections already, the most it may have. Remove one first.",
	"display_name_taken":        "Another connection already has this name. Choose another one.",
	"duplicate_connection":      "This server is already connected here.",

	// the request itself
	"invalid_body":             "Some of what you entered is not valid.",
	"invalid_field":            "Some of what you entered is not valid.",
	"missing_field":            "A required field is empty.",
	"body_too_large":           "What you sent is too long.",
	"method_not_allowed":       "The dashboard sent a request the service does not accept. Reload the page.",
	"invalid_task_description": "Describe the task in at least two words.",
	"vague_task_description":   "The task is too vague to plan. Say what you want delivered (a report, a plan, a post, ...) and about what.",
	"input_too_long":           "The description is too long.",
	"invalid_step_index":       "An approval step is outside the plan.",
	"invalid_language":         "The language is not a valid language code (such as en or de-CH).",
	"invalid_action":           "That action is not possible here.",
	"no_plan":                  "This workflow has no plan to run.",
	"no_workflow_ids":          "Choose at least one workflow.",
	"bulk_limit_exceeded":      "At most 20 workflows can be cancelled at once.",
	"webhook_url_required":     "Give the address (an HTTPS URL) the results should be sent to.",
	"webhook_url_https":        "The address results are sent to must start with https://.",
	"webhook_url_invalid":      "The address results are sent to is not a valid public URL.",

	// money and limits
	"insufficient_credits":      "Your balance does not cover this run. Buy credits or choose a lighter plan.",
	"workspace_budget_exceeded": "This run would exceed the workspace's monthly budget.",
	"rate_limit_exceeded":       "Too many requests in the last minute. Wait a little and try again.",
	"concurrent_limit_exceeded": "Your plan's limit of workflows running at once is reached. Wait for one to finish, or cancel one.",
	"model_not_allowed":         "The workspace's model policy does not allow a model this plan needs.",

	// the state of a workflow
	"workflow_has_progress": "This workflow already ran steps; resume it instead.",
	"invalid_status":        "The workflow's status does not allow this now. Reload the page to see where it stands.",
	"duplicate_task":        "You ran the same task less than five minutes ago; open that workflow instead.",
	"already_complete":      "Every step already has a result: there is nothing left to resume.",
	"resume_conflict":       "Someone else is resuming this workflow right now.",
	"pending_human_review":  "The workflow waits for a person to approve it.",
	"prior_not_found":       "The workflow this one continues does not exist.",
	"prior_not_terminal":    "The workflow this one continues has not finished yet.",
	"concurrent_step":       "A step is already running. Try again in a few seconds.",
	"session_expired":       "This step-by-step session sat idle for too long and has ended.",
	"chain_depth_exceeded":  "A chain of workflows can be at most 10 long.",
	"context_too_large":     "The context carried over from earlier workflows is too large.",

	// the service failing
	"internal_error":      "Something went wrong on our side. Please try again.",
	"plan_error":          "The plan could not be made just now. Please try again.",
	"queue_failed":        "The run could not be started just now. Please try again.",
	"approve_failed":      "The decision could not be recorded just now. Please try again.",
	"step_error":          "The step could not be started just now. Please try again.",
	"provider_exhausted":  "The language model providers are not answering. Please try again later.",
	"plan_timeout":        "Planning took too long. Try again, or shorten the description.",
	"feature_not_enabled": "This feature is not enabled on this service.",
}

// fieldLabels name the API's fields as the forms label them.
var fieldLabels = map[string]string{
	"email": "Email", "password": "Password", "name": "Name", "task_description": "Task description",
	"q": "Search", "status": "Status", "task_type": "Task type", "folder_id": "Folder",
	"feedback": "Feedback", "notes": "Notes", "revision_guidance": "Guidance",
}

// label is the form's label of an API field ("" when it has none).
func label(field string) string {
	if l, ok := fieldLabels[field]; ok {
		return l
	}
	return strings.ReplaceAll(field, "_", " ")
}
