package httpapi_test

import (
	"testing"
	"time"

	"svc/adapters/webhook"
)

// webhookWalks are TestEveryWriteIsReadBack's walks of the workspace
// webhook routes (a Team organization): a webhook created, changed or
// deleted is read back from the list; test and verify write nothing and
// answer their shapes.
func webhookWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	key, wsID := budgetWorkspace(t, f)
	base := "/api/workspaces/" + wsID + "/webhooks"
	create := func(t *testing.T) (id, secret string) {
		t.Helper()
		code, body := f.call(t, "POST", base, key, map[string]any{"url": "https://127.0.0.1:1/hook", "events": []string{"step_failed"}})
		if code != 201 || body["secret"] == nil || body["active"] != true {
			t.Fatalf("create: %d %v", code, body)
		}
		return body["id"].(string), body["secret"].(string)
	}
	listed := func(t *testing.T) map[string]any {
		t.Helper()
		code, body := f.call(t, "GET", base, key, nil)
		if code != 200 {
			t.Fatalf("list: %d %v", code, body)
		}
		return ids(body, "webhooks", "id")
	}
	return map[string]func(t *testing.T){
		"POST workspaces.webhooks.create": func(t *testing.T) {
			id, _ := create(t)
			w, ok := listed(t)[id].(map[string]any)
			if !ok || w["secret"] != nil {
				t.Fatalf("created webhook listed as %v", w)
			}
		},
		"PATCH workspaces.webhooks.update": func(t *testing.T) {
			id, _ := create(t)
			code, body := f.call(t, "PATCH", base+"/"+id, key, map[string]any{"active": false, "description": "d"})
			if code != 200 || body["active"] != false || body["secret"] != nil {
				t.Fatalf("patch: %d %v", code, body)
			}
			if w := listed(t)[id].(map[string]any); w["active"] != false || w["description"] != "d" {
				t.Fatalf("patched webhook listed as %v", w)
			}
		},
		"DELETE workspaces.webhooks.delete": func(t *testing.T) {
			id, _ := create(t)
			if code, body := f.call(t, "DELETE", base+"/"+id, key, nil); code != 200 || body["ok"] != true {
				t.Fatalf("delete: %d %v", code, body)
			}
			if w, ok := listed(t)[id]; ok {
				t.Fatalf("deleted webhook listed: %v", w)
			}
		},
		"POST workspaces.webhooks.test": func(t *testing.T) {
			id, _ := create(t)
			code, body := f.call(t, "POST", base+"/"+id+"/test", key, nil)
			if code != 200 || body["ok"] != true || body["delivered"] != false || body["status_code"] != 0.0 {
				t.Fatalf("test to a refused address: %d %v", code, body)
			}
		},
		"POST workspaces.webhooks.verify": func(t *testing.T) {
			id, secret := create(t)
			payload := `{"type":"test"}`
			for sig, want := range map[string]bool{webhook.Sign(secret, time.Now(), []byte(payload)): true, "t=1,v1=00": false} {
				code, body := f.call(t, "POST", base+"/"+id+"/verify", key, map[string]any{"payload": payload, "signature": sig})
				if code != 200 || body["valid"] != want {
					t.Fatalf("verify %q: %d %v, want valid %v", sig, code, body, want)
				}
			}
		},
		"POST workspaces.webhooks.rotate_secret": func(t *testing.T) {
			id, old := create(t)
			code, body := f.call(t, "POST", base+"/"+id+"/rotate-secret", key, map[string]any{"overlap_hours": 1})
			secret, _ := body["secret"].(string)
			if code != 200 || body["ok"] != true || body["id"] != id || len(secret) != 64 || secret == old || body["previous_secret_expires_at"] == nil {
				t.Fatalf("rotate: %d %v", code, body)
			}
			// read back at once: both secrets verify during the overlap
			payload := `{"type":"test"}`
			for _, s := range []string{secret, old} {
				code, body := f.call(t, "POST", base+"/"+id+"/verify", key, map[string]any{"payload": payload,
					"signature": webhook.Sign(s, time.Now(), []byte(payload))})
				if code != 200 || body["valid"] != true {
					t.Fatalf("verify after rotation: %d %v", code, body)
				}
			}
			// without overlap the old secret stops at once
			code, body = f.call(t, "POST", base+"/"+id+"/rotate-secret", key, map[string]any{"overlap_hours": 0})
			if code != 200 || body["previous_secret_expires_at"] != nil {
				t.Fatalf("rotate without overlap: %d %v", code, body)
			}
			code, body = f.call(t, "POST", base+"/"+id+"/verify", key, map[string]any{"payload": payload,
				"signature": webhook.Sign(secret, time.Now(), []byte(payload))})
			if code != 200 || body["valid"] != false {
				t.Fatalf("verify with the retired secret: %d %v", code, body)
			}
		},
	}
}

// readWebhooks is TestNoNullLists' read of the webhook list, empty and
// with one webhook, of a Team organization.
func readWebhooks(t *testing.T, f *fixture) {
	key, wsID := budgetWorkspace(t, f)
	path := "/api/workspaces/" + wsID + "/webhooks"
	for i := range 2 {
		code, body := f.call(t, "GET", path, key, nil)
		if list, ok := body["webhooks"].([]any); code != 200 || !ok || len(list) != i {
			t.Fatalf("%s: %d %v", path, code, body)
		}
		if i == 0 {
			if code, body := f.call(t, "POST", path, key, map[string]any{"url": "https://example.com/h", "events": []string{"timed_out"}}); code != 201 {
				t.Fatalf("create: %d %v", code, body)
			}
		}
	}
	if code, body := f.call(t, "GET", path, key, nil); code != 200 || body["webhooks"].([]any)[0].(map[string]any)["events"] == nil {
		t.Fatalf("%s: %d %v", path, code, body)
	}
}
