package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"svc/domain/apikey"
	"svc/domain/org"
	"svc/projections"
)

// Anonymous mode of the workflow MCP server (spec A, Authentication item
// 5): a request without x-api-key may initialize, list the tools and call
// rigor_plan, which plans in the demo organization (commands.DemoOrgs),
// limited per client address; any other tool answers 401
// missing_api_key. The plan route's handler is called directly with the
// demo organization's principal: no REST route accepts a request without
// a key, and no key of the demo organization exists outside this
// process's memory of its id.

// Anonymous limits per client address (spec A, Limits).
const (
	anonPerMinute = 30
	anonPerDay    = 500
)

// anonymousCall serves tool t called without a key: its status and body,
// as subRequest answers (the header holds no key).
func (s *Server) anonymousCall(ctx context.Context, t rigorTool, _ http.Header, args map[string]any) (int, []byte) {
	body, _ := json.Marshal(args)
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/rigor/plan", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	s.handle(func(w http.ResponseWriter, r *http.Request) error {
		if t.name != "rigor_plan" {
			return newError(http.StatusUnauthorized, "missing_api_key", "Send your API key in the x-api-key header: without one only rigor_plan may be called.").
				withFix("Create a key with POST /api/keys and send it as x-api-key: svc_live_...")
		}
		if _, ok := args["available_mcp_connections"]; ok {
			return errInvalidField("available_mcp_connections", "anonymous plans reach no context server; send an x-api-key to plan with connections")
		}
		if err := s.anonymousLimits(w, r); err != nil {
			return err
		}
		demo, err := s.commands.DemoOrgs.Ensure(r.Context())
		if err != nil {
			return err
		}
		p := projections.Principal{KeyID: demo.KeyID, OrgID: demo.OrgID, WorkspaceID: demo.WorkspaceID, Role: apikey.Viewer, Tier: org.Free}
		return s.plan(w, r.WithContext(withPrincipal(r.Context(), p)))
	}).ServeHTTP(w, r)
	return w.Code, w.Body.Bytes()
}

// anonymousLimits counts an anonymous call against its client address's
// sliding minute and its UTC day. Like every limit they degrade open.
func (s *Server) anonymousLimits(w http.ResponseWriter, r *http.Request) error {
	ip := clientIP(r.Context())
	if err := s.perMinute(w, r, "anon-minute:"+ip, anonPerMinute, "anonymous calls from this address"); err != nil {
		if ae, ok := err.(*apiError); ok {
			ae.withFix("Wait retry_after seconds, or send an x-api-key (POST /api/keys) for your organization's own limits.")
		}
		return err
	}
	now := time.Now().UTC()
	reset := now.Truncate(24 * time.Hour).Add(24 * time.Hour)
	key := "anon-day:" + ip + ":" + now.Format("2006-01-02")
	var (
		d   LimitDecision
		err error
	)
	if wl, ok := s.limiter.(WindowLimiter); ok {
		d, err = wl.AllowUntil(r.Context(), key, anonPerDay, reset)
	} else {
		d, err = s.limiter.Allow(r.Context(), key, anonPerDay, 24*time.Hour)
	}
	if err != nil {
		s.log.WarnContext(r.Context(), "rate limiter unavailable; letting the request through", "error", err)
		return nil
	}
	if d.Allowed {
		return nil
	}
	secs := retrySeconds(reset.Sub(now))
	return newError(http.StatusTooManyRequests, "rate_limit_exceeded",
		"Rate limit of "+strconv.Itoa(anonPerDay)+" anonymous calls per UTC day from this address reached.").
		withFix("Retry after midnight UTC, or send an x-api-key (POST /api/keys).").
		withDetail("limit", anonPerDay).withDetail("window_seconds", 86400).withDetail("retry_after", secs).
		withRetryAfterField(secs)
}
