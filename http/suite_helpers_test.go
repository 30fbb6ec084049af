package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"svc/commands"
	"svc/domain/credit"
)

// Helpers the suite's product tests share.

// rawCall calls a route with a raw JSON body ("" for none).
func rawCall(t *testing.T, f *fixture, method, path, key, body string) (int, map[string]any) {
	t.Helper()
	var b any
	if body != "" {
		b = json.RawMessage(body)
	}
	return f.call(t, method, path, key, b)
}

// wantSuiteError checks a suite refusal's status, code and envelope, and
// for a field that the message names it.
func wantSuiteError(t *testing.T, what string, code int, body map[string]any, wantCode int, wantError, field string) {
	t.Helper()
	if code != wantCode || body["error"] != wantError {
		t.Fatalf("%s: %d %v, want %d %s", what, code, body, wantCode, wantError)
	}
	if field != "" && !strings.Contains(fmt.Sprint(body["message"]), field) {
		t.Fatalf("%s: message %q does not name %s", what, body["message"], field)
	}
	if rid, _ := body["request_id"].(string); !strings.HasPrefix(rid, "req_") || body["status"] != float64(wantCode) {
		t.Fatalf("%s: envelope %v", what, body)
	}
}

// drain charges orgID's whole balance.
func drain(t *testing.T, orgID string) { drainTo(t, orgID, 0) }

// drainTo charges orgID's spendable balance down to left credits.
func drainTo(t *testing.T, orgID string, left int64) {
	t.Helper()
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	l, err := repos.Ledgers.Get(ctx, orgID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := commands.NewChargeCreditsHandler(repos).Handle(ctx, commands.ChargeCredits{Charge: credit.Charged{OrgID: orgID, Amount: l.Balance() - left, Reason: "test"}})
	if err != nil || res.Balance != left {
		t.Fatalf("charging the balance down to %d: %+v, %v", left, res, err)
	}
}
