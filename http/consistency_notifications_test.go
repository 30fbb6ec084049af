package httpapi_test

import (
	"context"
	"testing"
	"time"

	"svc/domain/apikey"
	"svc/domain/credit"
	"svc/eventstore/event"
)

// notificationWalks are TestEveryWriteIsReadBack's walks of the
// notification routes: marking a notification read by id, and the rest by
// all, shows at once in the list and the count; another organization's
// ids change nothing. The notifications come from failed auto-reloads
// appended to the log (no sign-up: the fixture's address has few).
func notificationWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	return map[string]func(t *testing.T){
		"PATCH notifications.read": func(t *testing.T) {
			key, orgID := keyWithRole(t, apikey.Owner)
			other, _ := keyWithRole(t, apikey.Owner)
			waitKey(t, f, key)
			waitKey(t, f, other)
			for i, id := range []string{"nw-a-" + orgID, "nw-b-" + orgID} {
				_, err := store.Append(context.Background(), "notification-test-"+orgID, int64(i)-1, event.New{
					Metadata: event.Metadata{OrgID: orgID},
					Data:     credit.AutoReloadFailed{OrgID: orgID, ReloadID: id, Reason: "card_declined"}})
				if err != nil {
					t.Fatal(err)
				}
			}
			count := func(k string) float64 {
				code, body := f.call(t, "GET", "/api/notifications/count", k, nil)
				if code != 200 {
					t.Fatalf("count: %d %v", code, body)
				}
				return body["unread_count"].(float64)
			}
			for deadline := time.Now().Add(30 * time.Second); count(key) != 2; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the notifications never showed")
				}
			}
			code, body := f.call(t, "GET", "/api/notifications?limit=1", key, nil)
			list, _ := body["notifications"].([]any)
			if code != 200 || len(list) != 1 || body["unread_count"] != 2.0 || body["has_more"] != true {
				t.Fatalf("list: %d %v", code, body)
			}
			n := list[0].(map[string]any)
			if n["type"] != "auto_reload_failed" || n["read_at"] != nil || n["workflow_id"] != nil {
				t.Fatalf("notification: %v", n)
			}
			id := n["id"].(string)
			if code, body := f.call(t, "PATCH", "/api/notifications/read", other, map[string]any{"notification_ids": []string{id}}); code != 200 || body["updated"] != 0.0 {
				t.Fatalf("another org's mark: %d %v", code, body)
			}
			if count(key) != 2 {
				t.Fatal("another org's mark changed the count")
			}
			if code, body := f.call(t, "PATCH", "/api/notifications/read", key, map[string]any{"notification_ids": []string{id}}); code != 200 || body["updated"] != 1.0 {
				t.Fatalf("mark by id: %d %v", code, body)
			}
			if count(key) != 1 {
				t.Fatal("marked by id, still unread in the count")
			}
			_, body = f.call(t, "GET", "/api/notifications?limit=1", key, nil)
			if n := body["notifications"].([]any)[0].(map[string]any); n["read_at"] == nil {
				t.Fatalf("marked by id, listed unread: %v", n)
			}
			if code, body := f.call(t, "PATCH", "/api/notifications/read", key, map[string]any{"all": true}); code != 200 || body["updated"] != 1.0 {
				t.Fatalf("mark all: %d %v", code, body)
			}
			_, body = f.call(t, "GET", "/api/notifications?unread_only=true", key, nil)
			if list, _ := body["notifications"].([]any); len(list) != 0 || body["unread_count"] != 0.0 {
				t.Fatalf("after marking all: %v", body)
			}
		},
	}
}
