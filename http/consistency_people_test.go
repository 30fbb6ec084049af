package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"svc/commands"
	"svc/domain/org"
	"svc/domain/workflow"
)

// callAs is call with a session cookie (access token) instead of a key; it
// also returns the answer's session cookie ("" when none is set).
func (f *fixture) callAs(t *testing.T, method, path, access string, body any) (int, map[string]any, string) {
	t.Helper()
	code, out, cookies := f.exchange(t, method, path, body, func(r *http.Request) {
		if access != "" {
			r.AddCookie(&http.Cookie{Name: "svc_session", Value: access})
		}
	})
	for _, c := range cookies {
		if c.Name == "svc_session" {
			return code, out, c.Value
		}
	}
	return code, out, ""
}

// exchange sends a JSON body (nil for none), authenticated by auth, without
// following redirects, and decodes the answer, checking that no list in it
// is null.
func (f *fixture) exchange(t *testing.T, method, path string, body any, auth func(*http.Request)) (int, map[string]any, []*http.Cookie) {
	t.Helper()
	var in io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		in = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, f.ts.URL+path, in)
	req.Header.Set("content-type", "application/json")
	auth(req)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	noNullLists(t, method+" "+path, "", out)
	return resp.StatusCode, out, resp.Cookies()
}

// signUp signs a user up through the API and returns their access token,
// user id and default workspace.
func (f *fixture) signUp(t *testing.T) (access, userID, wsID string) {
	t.Helper()
	code, body, cookie := f.callAs(t, "POST", "/api/auth/signup", "", map[string]any{"email": "p-" + workflow.NewID() + "@example.com", "password": "long enough"})
	if code != 201 {
		t.Fatalf("signup: %d %v", code, body)
	}
	return cookie, body["user_id"].(string), body["workspace_id"].(string)
}

// ids lists the values of field in the objects of list key of body.
func ids(body map[string]any, key, field string) map[string]any {
	out := map[string]any{}
	list, _ := body[key].([]any)
	for _, raw := range list {
		m := raw.(map[string]any)
		out[m[field].(string)] = m
	}
	return out
}

// peopleWalks are TestEveryWriteIsReadBack's walks of the session, user
// and workspace routes.
func peopleWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	owner, _, wsID := f.signUp(t)
	var orgID string
	{
		code, body, _ := f.callAs(t, "POST", "/api/workspaces/"+wsID+"/api-keys", owner, map[string]any{"role": "owner"})
		if code != 201 {
			t.Fatalf("owner key: %d %v", code, body)
		}
		_, verify := f.call(t, "GET", "/api/keys/verify", body["key"].(string), nil)
		orgID = verify["org_id"].(string)
	}
	tier, err := commands.NewChangeTierHandler(repos).Handle(ctx, commands.ChangeTier{OrgID: orgID, Tier: org.Enterprise, Source: "operator"})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := f.runner.Wait(wctx, tier.Position); err != nil {
		t.Fatal(err)
	}
	ws := "/api/workspaces/" + wsID
	me := func(t *testing.T, access string) (int, map[string]any) {
		t.Helper()
		code, body, _ := f.callAs(t, "GET", "/api/user/me", access, nil)
		return code, body
	}
	members := func(t *testing.T) map[string]any {
		t.Helper()
		code, body, _ := f.callAs(t, "GET", ws+"/members", owner, nil)
		if code != 200 {
			t.Fatalf("members: %d %v", code, body)
		}
		return ids(body, "members", "id")
	}
	workspaces := func(t *testing.T) map[string]any {
		t.Helper()
		code, body, _ := f.callAs(t, "GET", "/api/workspaces", owner, nil)
		if code != 200 {
			t.Fatalf("workspaces: %d %v", code, body)
		}
		return ids(body, "workspaces", "id")
	}
	// join signs a user up and adds them through an invite link; their id
	join := func(t *testing.T) string {
		t.Helper()
		_, link, _ := f.callAs(t, "POST", ws+"/invites", owner, map[string]any{"role": "viewer"})
		access, id, _ := f.signUp(t)
		if code, body, _ := f.callAs(t, "POST", "/api/invites/accept", access, map[string]any{"token": link["token"]}); code != 200 {
			t.Fatalf("accept: %d %v", code, body)
		}
		return id
	}
	createWS := func(t *testing.T) string {
		t.Helper()
		code, body, _ := f.callAs(t, "POST", "/api/workspaces", owner, map[string]any{"name": "Walked"})
		if code != 201 {
			t.Fatalf("create workspace: %d %v", code, body)
		}
		return body["id"].(string)
	}
	return map[string]func(t *testing.T){
		"POST auth.signup": func(t *testing.T) {
			access, _, _ := f.signUp(t)
			if code, body := me(t, access); code != 200 || len(body["memberships"].([]any)) != 1 {
				t.Fatalf("me right after signup: %d %v", code, body)
			}
		},
		"POST auth.login": func(t *testing.T) {
			email := "l-" + workflow.NewID() + "@example.com"
			if code, body, _ := f.callAs(t, "POST", "/api/auth/signup", "", map[string]any{"email": email, "password": "long enough"}); code != 201 {
				t.Fatalf("signup: %d %v", code, body)
			}
			code, body, access := f.callAs(t, "POST", "/api/auth/login", "", map[string]any{"email": email, "password": "long enough"})
			if code != 200 || access == "" {
				t.Fatalf("login: %d %v", code, body)
			}
			if code, body := me(t, access); code != 200 {
				t.Fatalf("me right after login: %d %v", code, body)
			}
		},
		"POST auth.refresh": func(t *testing.T) {
			code, body, _ := f.callAs(t, "POST", "/api/auth/signup", "", map[string]any{"email": "r-" + workflow.NewID() + "@example.com", "password": "long enough"})
			if code != 201 {
				t.Fatalf("signup: %d %v", code, body)
			}
			refresh := body["session"].(map[string]any)["refresh_token"].(string)
			code, body, access := f.callAs(t, "POST", "/api/auth/refresh", "", map[string]any{"refresh_token": refresh})
			if code != 200 || access == "" {
				t.Fatalf("refresh: %d %v", code, body)
			}
			if code, body := me(t, access); code != 200 {
				t.Fatalf("me right after refresh: %d %v", code, body)
			}
		},
		"POST auth.logout": func(t *testing.T) {
			access, _, _ := f.signUp(t)
			if code, body, _ := f.callAs(t, "POST", "/api/auth/logout", access, nil); code != 200 {
				t.Fatalf("logout: %d %v", code, body)
			}
			if code, _ := me(t, access); code != 401 {
				t.Fatalf("me right after logout: %d, want 401", code)
			}
		},
		"GET auth.callback": func(t *testing.T) {
			res, err := commands.NewSignUpHandler(repos, nil).Handle(ctx, commands.SignUp{Email: "c-" + workflow.NewID() + "@example.com", Password: "long enough"})
			if err != nil {
				t.Fatal(err)
			}
			code, body, access := f.callAs(t, "GET", "/api/auth/callback?code="+res.VerificationCode, "", nil)
			if code != 302 || access == "" {
				t.Fatalf("callback: %d %v", code, body)
			}
			if code, body := me(t, access); code != 200 {
				t.Fatalf("me right after the callback: %d %v", code, body)
			}
		},
		"POST auth.mcp.initiate": func(t *testing.T) {
			// no provider is configured here: refused, nothing written
			if code, body, _ := f.callAs(t, "POST", "/api/auth/mcp/initiate", owner, map[string]any{"provider": "github"}); code != 400 {
				t.Fatalf("initiate without providers: %d %v", code, body)
			}
		},
		"POST workspaces.create": func(t *testing.T) {
			id := createWS(t)
			if _, ok := workspaces(t)[id]; !ok {
				t.Fatal("a created workspace is not listed at once")
			}
		},
		"PUT workspaces.rename": func(t *testing.T) {
			id := createWS(t)
			if code, body, _ := f.callAs(t, "PUT", "/api/workspaces/"+id, owner, map[string]any{"name": "Renamed"}); code != 200 || body["name"] != "Renamed" {
				t.Fatalf("rename: %d %v", code, body)
			}
			if w := workspaces(t)[id].(map[string]any); w["name"] != "Renamed" {
				t.Fatalf("listed as %v right after the rename", w["name"])
			}
		},
		"DELETE workspaces.archive": func(t *testing.T) {
			id := createWS(t)
			if code, body, _ := f.callAs(t, "DELETE", "/api/workspaces/"+id, owner, nil); code != 200 {
				t.Fatalf("archive: %d %v", code, body)
			}
			if _, ok := workspaces(t)[id]; ok {
				t.Fatal("an archived workspace is still listed")
			}
		},
		"POST workspaces.restore": func(t *testing.T) {
			id := createWS(t)
			_, _, _ = f.callAs(t, "DELETE", "/api/workspaces/"+id, owner, nil)
			if code, body, _ := f.callAs(t, "POST", "/api/workspaces/"+id+"/restore", owner, nil); code != 200 {
				t.Fatalf("restore: %d %v", code, body)
			}
			if _, ok := workspaces(t)[id]; !ok {
				t.Fatal("a restored workspace is not listed")
			}
		},
		"POST workspaces.members.add": func(t *testing.T) {
			email := "m-" + workflow.NewID() + "@example.com"
			code, body, _ := f.callAs(t, "POST", "/api/auth/signup", "", map[string]any{"email": email, "password": "long enough"})
			if code != 201 {
				t.Fatalf("signup: %d %v", code, body)
			}
			id := body["user_id"].(string)
			if code, body, _ := f.callAs(t, "POST", ws+"/members", owner, map[string]any{"email": email, "role": "member"}); code != 201 {
				t.Fatalf("add member: %d %v", code, body)
			}
			if _, ok := members(t)[id]; !ok {
				t.Fatal("an added member is not listed")
			}
		},
		"PATCH workspaces.members.role": func(t *testing.T) {
			added := join(t)
			if code, body, _ := f.callAs(t, "PATCH", ws+"/members/"+added, owner, map[string]any{"role": "admin"}); code != 200 {
				t.Fatalf("patch: %d %v", code, body)
			}
			if m := members(t)[added].(map[string]any); m["role"] != "admin" {
				t.Fatalf("role listed as %v right after the change", m["role"])
			}
		},
		"DELETE workspaces.members.remove": func(t *testing.T) {
			added := join(t)
			if code, body, _ := f.callAs(t, "DELETE", ws+"/members/"+added, owner, nil); code != 200 {
				t.Fatalf("remove: %d %v", code, body)
			}
			if _, ok := members(t)[added]; ok {
				t.Fatal("a removed member is still listed")
			}
		},
		"POST workspaces.keys.create": func(t *testing.T) {
			code, body, _ := f.callAs(t, "POST", ws+"/api-keys", owner, map[string]any{"label": "walked"})
			if code != 201 {
				t.Fatalf("create key: %d %v", code, body)
			}
			if code, _ := f.call(t, "GET", "/api/keys/verify", body["key"].(string), nil); code != 200 {
				t.Fatalf("a new workspace key does not verify at once: %d", code)
			}
			_, list, _ := f.callAs(t, "GET", ws+"/api-keys", owner, nil)
			if _, ok := ids(list, "api_keys", "key_id")[body["key_id"].(string)]; !ok {
				t.Fatal("a new key is not listed")
			}
		},
		"DELETE workspaces.keys.revoke": func(t *testing.T) {
			_, body, _ := f.callAs(t, "POST", ws+"/api-keys", owner, map[string]any{"label": "to revoke"})
			k, id := body["key"].(string), body["key_id"].(string)
			if code, _ := f.call(t, "GET", "/api/keys/verify", k, nil); code != 200 {
				t.Fatalf("key before revocation: %d", code)
			}
			if code, body, _ := f.callAs(t, "DELETE", ws+"/api-keys/"+id, owner, nil); code != 200 {
				t.Fatalf("revoke: %d %v", code, body)
			}
			if code, _ := f.call(t, "GET", "/api/keys/verify", k, nil); code != 401 {
				t.Fatalf("a revoked key answers %d, want 401", code)
			}
			_, list, _ := f.callAs(t, "GET", ws+"/api-keys", owner, nil)
			if _, ok := ids(list, "api_keys", "key_id")[id]; ok {
				t.Fatal("a revoked key is still listed")
			}
		},
		"POST workspaces.invites.create": func(t *testing.T) {
			code, body, _ := f.callAs(t, "POST", ws+"/invites", owner, map[string]any{"role": "viewer"})
			if code != 201 {
				t.Fatalf("create link: %d %v", code, body)
			}
			_, list, _ := f.callAs(t, "GET", ws+"/invites", owner, nil)
			if _, ok := ids(list, "invites", "invite_id")[body["invite_id"].(string)]; !ok {
				t.Fatal("a new link is not listed")
			}
		},
		"DELETE workspaces.invites.revoke": func(t *testing.T) {
			_, body, _ := f.callAs(t, "POST", ws+"/invites", owner, map[string]any{"role": "viewer"})
			id := body["invite_id"].(string)
			if code, body, _ := f.callAs(t, "DELETE", ws+"/invites/"+id, owner, nil); code != 200 {
				t.Fatalf("revoke link: %d %v", code, body)
			}
			_, list, _ := f.callAs(t, "GET", ws+"/invites", owner, nil)
			if _, ok := ids(list, "invites", "invite_id")[id]; ok {
				t.Fatal("a revoked link is still listed")
			}
		},
		"POST invites.accept": func(t *testing.T) {
			_, body, _ := f.callAs(t, "POST", ws+"/invites", owner, map[string]any{"role": "viewer"})
			joiner, _, _ := f.signUp(t)
			if code, body, _ := f.callAs(t, "POST", "/api/invites/accept", joiner, map[string]any{"token": body["token"]}); code != 200 {
				t.Fatalf("accept: %d %v", code, body)
			}
			if _, m := me(t, joiner); len(m["memberships"].([]any)) != 2 {
				t.Fatalf("memberships right after accepting: %v", m)
			}
		},
	}
}
