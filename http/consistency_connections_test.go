package httpapi_test

import (
	"testing"
)

// connectionWalks are TestEveryWriteIsReadBack's walks of the connection
// routes: a connection created, changed, tested or revoked is read back
// from the list at once.
func connectionWalks(t *testing.T, f *fixture, key string) map[string]func(t *testing.T) {
	n := 0
	create := func(t *testing.T) string {
		t.Helper()
		n++
		code, body := f.call(t, "POST", "/api/rigor/connections", key, map[string]any{"display_name": "walk-" + string(rune('a'+n)),
			"scope": "org", "server_url": "https://walk-" + string(rune('a'+n)) + ".invalid/mcp", "auth_type": "bearer_token",
			"auth_credential": map[string]any{"token": "walk-secret"}})
		if code != 201 {
			t.Fatalf("create: %d %v", code, body)
		}
		return body["connection"].(map[string]any)["id"].(string)
	}
	listed := func(t *testing.T, id string) map[string]any {
		t.Helper()
		code, body := f.call(t, "GET", "/api/rigor/connections", key, nil)
		if code != 200 {
			t.Fatalf("list: %d %v", code, body)
		}
		c, _ := ids(body, "connections", "id")[id].(map[string]any)
		return c
	}
	return map[string]func(t *testing.T){
		"POST rigor.connections.create": func(t *testing.T) {
			id := create(t)
			if c := listed(t, id); c == nil || c["status"] != "pending" || c["auth_credential"] != nil {
				t.Fatalf("created connection listed as %v", c)
			}
		},
		"PATCH rigor.connections.update": func(t *testing.T) {
			id := create(t)
			code, body := f.call(t, "PATCH", "/api/rigor/connections/"+id, key, map[string]any{"label": "Renamed", "permission_mode": "read_write"})
			if code != 200 || body["label"] != "Renamed" {
				t.Fatalf("patch: %d %v", code, body)
			}
			if c := listed(t, id); c["label"] != "Renamed" || c["permission_mode"] != "read_write" {
				t.Fatalf("patched connection listed as %v", c)
			}
		},
		"POST rigor.connections.test": func(t *testing.T) {
			id := create(t)
			code, body := f.call(t, "POST", "/api/rigor/connections/"+id+"/test", key, nil)
			if code != 400 || body["status"] != "error" || body["code"] != "connection_failed" {
				t.Fatalf("test of a host that does not resolve: %d %v", code, body)
			}
			if c := listed(t, id); c["status"] != "error" || c["last_tested_at"] == nil {
				t.Fatalf("tested connection listed as %v", c)
			}
		},
		"DELETE rigor.connections.delete": func(t *testing.T) {
			id := create(t)
			if code, body := f.call(t, "DELETE", "/api/rigor/connections/"+id, key, nil); code != 200 {
				t.Fatalf("delete: %d %v", code, body)
			}
			if c := listed(t, id); c["status"] != "revoked" {
				t.Fatalf("deleted connection listed as %v", c)
			}
		},
	}
}

// readConnections is TestNoNullLists' read of the connection list, empty
// and with a connection of a provider outside the registry.
func readConnections(t *testing.T, f *fixture, key string) {
	for i := range 2 {
		code, body := f.call(t, "GET", "/api/rigor/connections", key, nil)
		if list, ok := body["connections"].([]any); code != 200 || !ok || len(list) != i || len(body) != 3 {
			t.Fatalf("connections: %d %v", code, body)
		}
		if i == 0 {
			if code, body := f.call(t, "POST", "/api/rigor/connections", key, map[string]any{"label": "Lists", "scope": "org",
				"server_url": "https://lists.example.com", "auth_type": "none", "provider": "acme"}); code != 201 {
				t.Fatalf("create: %d %v", code, body)
			}
		}
	}
}
