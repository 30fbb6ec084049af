package httpapi_test

import (
	"context"
	"testing"
	"time"

	"svc/commands"
	"svc/commands/erasure"
	"svc/domain/apikey"
)

// deletionWalks are TestEveryWriteIsReadBack's walks of data deletion: a
// request is listed, and notified, at once; its repeat by the same key
// answers it again; its confirmation, with an erasure runner beside the
// test server, answers once the organization is gone, and its key fails
// from the next request on.
func deletionWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	request := func(t *testing.T, key string) map[string]any {
		t.Helper()
		code, body := f.call(t, "POST", "/api/data/delete-request", key, nil)
		if code != 202 || body["status"] != "pending" || body["confirmation_token"] == "" {
			t.Fatalf("delete-request: %d %v", code, body)
		}
		return body
	}
	return map[string]func(t *testing.T){
		"POST data.delete_request": func(t *testing.T) {
			key, _ := keyWithRole(t, apikey.Owner)
			waitKey(t, f, key)
			first := request(t, key)
			_, list := f.call(t, "GET", "/api/data/delete-request", key, nil)
			reqs, _ := list["requests"].([]any)
			if len(reqs) != 1 || reqs[0].(map[string]any)["id"] != first["request_id"] || reqs[0].(map[string]any)["status"] != "pending" {
				t.Fatalf("the request is not listed at once: %v", list)
			}
			_, notes := f.call(t, "GET", "/api/notifications", key, nil)
			ns, _ := notes["notifications"].([]any)
			if len(ns) != 1 || ns[0].(map[string]any)["type"] != "deletion_requested" {
				t.Fatalf("no deletion_requested notification at once: %v", notes)
			}
			again := request(t, key)
			if again["request_id"] != first["request_id"] || again["confirmation_token"] != first["confirmation_token"] {
				t.Fatalf("a repeat within the window answers another request: %v, first %v", again, first)
			}
		},
		"DELETE data.confirm_deletion": func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			runner := erasure.New(commands.NewRepositories(store), erasure.Config{Poll: 50 * time.Millisecond, Lease: 2 * time.Second}, quiet)
			done := make(chan struct{})
			go func() { runner.Run(ctx); close(done) }()
			defer func() { cancel(); <-done }()

			key, orgID := keyWithRole(t, apikey.Owner)
			waitKey(t, f, key)
			req := request(t, key)
			code, body := f.call(t, "DELETE", "/api/data/confirm-deletion", key, map[string]any{
				"request_id": req["request_id"], "confirmation_token": req["confirmation_token"]})
			if code != 200 || body["ok"] != true || body["status"] != "completed" {
				t.Fatalf("confirm: %d %v", code, body)
			}
			if code, body := f.call(t, "GET", "/api/billing/balance", key, nil); code != 401 {
				t.Fatalf("the erased organization's key still works: %d %v", code, body)
			}
			var (
				status string
				org    *string
			)
			err := store.Pool().QueryRow(ctx, `SELECT status, org_id::text FROM deletion_requests WHERE request_id = $1`, req["request_id"]).Scan(&status, &org)
			if err != nil || status != "completed" || org != nil {
				t.Fatalf("the request's record: %q %v %v", status, org, err)
			}
			var left int
			if err := store.Pool().QueryRow(ctx, `SELECT count(*) FROM events WHERE org_id = $1`, orgID).Scan(&left); err != nil || left != 0 {
				t.Fatalf("%d events of the erased organization left (%v)", left, err)
			}
		},
	}
}
