package blackbox

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// deletionEnv makes a deletion request expire after 2 s (so the daily limit
// is reachable in a test) and leases last 2 s (a dead instance's erasure is
// taken over soon).
var deletionEnv = map[string]string{"SVC_DELETION_TOKEN_TTL": "2s", "SVC_WORKER_LEASE": "2s", "SVC_WEBHOOK_BACKOFF_SCALE": "0.01"}

// deleter is who calls the data deletion routes: an API key or a session's cookie.
type deleter struct {
	key    string
	cookie map[string]string
}

func (s *server) as(t testing.TB, w deleter, method, path string, body any) *response {
	t.Helper()
	return s.do(t, req{Method: method, Path: path, Key: w.key, Header: w.cookie, Body: body})
}

// expiry is how long a request of deletionEnv lasts at most: its TTL,
// rounded up to the second.
const expiry = 3100 * time.Millisecond

const (
	deleteRequestPath = "/api/data/delete-request"
	confirmPath       = "/api/data/confirm-deletion"
)

// requestDeletion asks for the deletion of w's organization and checks
// the 202's shape; it returns the request id and the token.
func (s *server) requestDeletion(t testing.TB, w deleter) (string, string) {
	t.Helper()
	res := s.as(t, w, http.MethodPost, deleteRequestPath, nil)
	wantStatus(t, res, http.StatusAccepted)
	id := uuidField(t, res.Body, "request_id")
	token := str(t, res.Body, "confirmation_token")
	if res.Body["status"] != "pending" || str(t, res.Body, "warning") == "" || str(t, res.Body, "next_step") == "" {
		t.Fatalf("delete-request answer: %s", res.Raw)
	}
	if affected, _ := res.Body["affected_data"].([]any); len(affected) == 0 {
		t.Fatalf("delete-request lists no affected data: %s", res.Raw)
	}
	for _, f := range []string{"requested_at", "expires_at"} {
		if _, err := time.Parse(time.RFC3339, str(t, res.Body, f)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return id, token
}

// deletionRequests lists w's organization's requests.
func (s *server) deletionRequests(t testing.TB, w deleter) []map[string]any {
	t.Helper()
	res := s.as(t, w, http.MethodGet, deleteRequestPath, nil)
	wantStatus(t, res, http.StatusOK)
	var out []map[string]any
	list, ok := res.Body["requests"].([]any)
	if !ok {
		t.Fatalf("requests is not a list: %s", res.Raw)
	}
	for _, r := range list {
		out = append(out, r.(map[string]any))
	}
	return out
}

// TestDataDeletion: the routes of spec B's data deletion and each of their
// refusals (roles, the pending request, its repeat, its expiry, the daily
// limit, wrong ids and tokens, a used request), and an erasure whose owner
// belongs to another organization: she keeps her account, now at home
// there, and her erased organization is nowhere in the database.
func TestDataDeletion(t *testing.T) {
	t.Parallel()
	s := startServer(t, deletionEnv)
	carl := s.signUpPerson(t, "carl")
	owner := deleter{key: s.keyWithRole(t, carl, carl.WorkspaceID, "owner")}
	session := deleter{cookie: carl.cookie()}

	wantError(t, s.do(t, req{Path: deleteRequestPath}), http.StatusUnauthorized, "unauthorized")
	for _, role := range []string{"admin", "member", "viewer"} {
		k := deleter{key: s.keyWithRole(t, carl, carl.WorkspaceID, role)}
		wantError(t, s.as(t, k, http.MethodGet, deleteRequestPath, nil), http.StatusForbidden, "forbidden")
		wantError(t, s.as(t, k, http.MethodPost, deleteRequestPath, nil), http.StatusForbidden, "forbidden")
		wantError(t, s.as(t, k, http.MethodDelete, confirmPath, map[string]any{"request_id": "x", "confirmation_token": "y"}), http.StatusForbidden, "forbidden")
	}
	if list := s.deletionRequests(t, owner); len(list) != 0 {
		t.Fatalf("a new organization lists requests: %v", list)
	}

	// a request, its repeat by the same key, another owner's 409
	id, token := s.requestDeletion(t, owner)
	if again, againToken := s.requestDeletion(t, owner); again != id || againToken != token {
		t.Fatalf("a repeat within the window answered %s, want the pending %s and its token", again, id)
	}
	res := s.as(t, session, http.MethodPost, deleteRequestPath, nil)
	wantError(t, res, http.StatusConflict, "deletion_already_pending")
	list := s.deletionRequests(t, session)
	if len(list) != 1 || list[0]["id"] != id || list[0]["status"] != "pending" || list[0]["soft_deleted_at"] != nil ||
		list[0]["completed_at"] != nil || list[0]["error"] != nil {
		t.Fatalf("requests: %v", list)
	}
	notes := s.as(t, owner, http.MethodGet, "/api/notifications", nil)
	if !strings.Contains(string(notes.Raw), `"type":"deletion_requested"`) || !strings.Contains(string(notes.Raw), id) {
		t.Fatalf("no deletion_requested notification: %s", notes.Raw)
	}

	// refusals of the confirmation
	wantError(t, s.as(t, owner, http.MethodDelete, confirmPath, map[string]any{}), http.StatusBadRequest, "missing_field")
	wantError(t, s.as(t, owner, http.MethodDelete, confirmPath, map[string]any{"request_id": id}), http.StatusBadRequest, "missing_field")
	wantError(t, s.as(t, owner, http.MethodDelete, confirmPath, map[string]any{"request_id": 5, "confirmation_token": token}), http.StatusBadRequest, "invalid_body")
	for _, body := range []map[string]any{
		{"request_id": id, "confirmation_token": "del_" + strings.Repeat("0", 48)},
		{"request_id": "00000000-0000-4000-8000-000000000000", "confirmation_token": token},
		{"request_id": "not a request", "confirmation_token": token},
	} {
		wantError(t, s.as(t, owner, http.MethodDelete, confirmPath, body), http.StatusNotFound, "invalid_deletion_request")
	}
	// expired: its token no longer confirms it
	time.Sleep(expiry)
	wantError(t, s.as(t, owner, http.MethodDelete, confirmPath, map[string]any{"request_id": id, "confirmation_token": token}),
		http.StatusNotFound, "invalid_deletion_request")
	if list := s.deletionRequests(t, owner); len(list) != 1 || list[0]["status"] != "expired" {
		t.Fatalf("after its expiry: %v", list)
	}
	// the daily limit: 5 requests, each let expire, then 429 until midnight UTC
	for range 4 {
		if next, _ := s.requestDeletion(t, session); next == id {
			t.Fatal("an expired request was answered again")
		}
		time.Sleep(expiry)
	}
	res = s.as(t, owner, http.MethodPost, deleteRequestPath, nil)
	wantError(t, res, http.StatusTooManyRequests, "deletion_rate_limited")
	secs := integer(t, res.Body, "retry_after_seconds")
	midnight := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	if secs < 1 || secs > int64(time.Until(midnight).Seconds())+2 || res.Header.Get("Retry-After") == "" {
		t.Fatalf("retry_after_seconds %d (Retry-After %q), want until midnight UTC", secs, res.Header.Get("Retry-After"))
	}
	if list := s.deletionRequests(t, owner); len(list) != 5 {
		t.Fatalf("%d requests listed, want 5", len(list))
	}

	// ann's organization goes; she is a member of bob's, so she stays
	ann, bob := s.signUpPerson(t, "ann"), s.signUpPerson(t, "bob")
	added := s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + bob.WorkspaceID + "/members", Header: bob.cookie(),
		Body: map[string]any{"email": ann.Email, "role": "member"}})
	wantStatus(t, added, http.StatusCreated)
	annID, annToken := s.requestDeletion(t, deleter{cookie: ann.cookie()})
	done := s.as(t, deleter{cookie: ann.cookie()}, http.MethodDelete, confirmPath, map[string]any{"request_id": annID, "confirmation_token": annToken})
	wantStatus(t, done, http.StatusOK)
	if done.Body["ok"] != true || done.Body["status"] != "completed" || str(t, done.Body, "message") == "" {
		t.Fatalf("confirm: %s", done.Raw)
	}
	me := s.do(t, req{Path: "/api/user/me", Header: ann.cookie()})
	wantStatus(t, me, http.StatusOK)
	ms, _ := me.Body["memberships"].([]any)
	if len(ms) != 1 || ms[0].(map[string]any)["workspace_id"] != bob.WorkspaceID || ms[0].(map[string]any)["role"] != "member" {
		t.Fatalf("ann's memberships after her organization's erasure: %s", me.Raw)
	}
	login := s.do(t, req{Method: http.MethodPost, Path: "/api/auth/login", XFF: nextIP(), Body: map[string]any{"email": ann.Email, "password": ann.Password}})
	wantStatus(t, login, http.StatusOK)
	// the used request is no request of bob's organization; ann's erased
	// workspace is not found, restoring it included (decision 166)
	wantError(t, s.as(t, deleter{cookie: bob.cookie()}, http.MethodDelete, confirmPath, map[string]any{"request_id": annID, "confirmation_token": annToken}),
		http.StatusNotFound, "invalid_deletion_request")
	wantError(t, s.do(t, req{Path: "/api/workspaces/" + ann.WorkspaceID, Header: ann.cookie()}), http.StatusNotFound, "not_found")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + ann.WorkspaceID + "/restore", Header: bob.cookie()}), http.StatusNotFound, "not_found")
	dump := pgDump(t, s.dbURL)
	for what, v := range map[string]string{"ann's organization": ann.OrgID, "her old workspace": ann.WorkspaceID} {
		if strings.Contains(dump, v) {
			t.Errorf("%s (%s) is still in the database", what, v)
		}
	}
	if !strings.Contains(dump, ann.Email) {
		t.Error("ann's account (she belongs to bob's organization) was erased")
	}
}

// pgDump is pg_dump's text of the database of dbURL.
func pgDump(t testing.TB, dbURL string) string {
	t.Helper()
	path, err := exec.LookPath("pg_dump")
	if err != nil {
		t.Skip("pg_dump is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--no-owner", "--no-privileges", "-d", dbURL).Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	return string(out)
}

// TestDataDeletionErasesEverything: two instances on one database; an
// organization with workspaces, keys, members, invites, folders, webhooks
// and workflows (task text, deliverables, webhook URLs) is erased while a
// read model cannot be written: the confirmation answers 500
// deletion_failed with the request's id, half of it done; the
// organization's keys and sessions fail at once on both instances; the
// instance running the erasure is killed, the other takes it over and
// finishes once the lock is gone. Then pg_dump of the database holds none
// of the organization's ids, emails, names, key prefixes, task text,
// deliverables or webhook URLs; another organization is untouched, its
// read models rebuilt from the log equal the live ones and svc replay
// billing --all agrees.
func TestDataDeletionErasesEverything(t *testing.T) {
	t.Parallel()
	env := map[string]string{"SVC_SECRET_KEY": randomHex(32)}
	for k, v := range deletionEnv {
		env[k] = v
	}
	c := startCluster(t, 2, false, env)
	a, b := c.nodes[0], c.nodes[1]
	ctx := context.Background()

	carl := a.signUpPerson(t, "carl-erased")
	setTier(t, a, carl, "team")
	secrets := map[string]string{"carl's organization": carl.OrgID, "carl": carl.UserID, "carl's email": carl.Email,
		"carl's name": "User carl-erased", "his default workspace": carl.WorkspaceID}
	marker := "zebra" + randomHex(6)
	ws := a.do(t, req{Method: http.MethodPost, Path: "/api/workspaces", Header: carl.cookie(), Body: map[string]any{"name": "Erased " + marker + " workspace"}})
	wantStatus(t, ws, http.StatusCreated)
	secrets["the second workspace"], secrets["its name"] = str(t, ws.Body, "id"), "Erased "+marker+" workspace"
	keys := map[string]string{}
	for _, role := range []string{"owner", "member"} {
		res := a.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + carl.WorkspaceID + "/api-keys", Header: carl.cookie(),
			Body: map[string]any{"label": role + " " + marker + " key", "role": role}})
		wantStatus(t, res, http.StatusCreated)
		keys[role] = str(t, res.Body, "key")
		secrets[role+" key id"], secrets[role+" key prefix"], secrets[role+" key label"] = str(t, res.Body, "key_id"), str(t, res.Body, "prefix"), role+" "+marker+" key"
	}
	key := keys["owner"]
	folder := a.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + carl.WorkspaceID + "/folders", Header: carl.cookie(), Body: map[string]any{"name": "Folder " + marker}})
	wantStatus(t, folder, http.StatusCreated)
	secrets["the folder"] = "Folder " + marker
	endpoint := "https://endpoint-" + marker + ".invalid/hook"
	hook := a.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + carl.WorkspaceID + "/webhooks", Header: carl.cookie(),
		Body: map[string]any{"url": endpoint, "events": []string{"workflow_completed"}}})
	wantStatus(t, hook, http.StatusCreated)
	secrets["the workspace webhook's URL"] = endpoint
	invitee := uniqueEmail("invitee-" + marker)
	wantStatus(t, a.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + carl.WorkspaceID + "/members", Header: carl.cookie(),
		Body: map[string]any{"email": invitee, "role": "viewer"}}), http.StatusCreated)
	secrets["the invitee's email"] = invitee

	bob := b.signUpPerson(t, "bob-kept")
	bobKey := b.keyWithRole(t, bob, bob.WorkspaceID, "owner")
	wantStatus(t, a.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + carl.WorkspaceID + "/members", Header: carl.cookie(),
		Body: map[string]any{"email": bob.Email, "role": "member"}}), http.StatusCreated)

	hookURL := "https://hook-" + marker + ".invalid/deliver"
	secrets["the workflow's webhook URL"] = hookURL
	task := "Compare our " + marker + " pricing with three competitors for the board"
	secrets["the task text"] = marker
	run := a.execute(t, key, map[string]any{"task_description": task, "task_type": "competitive_analysis",
		"delivery": map[string]any{"method": "webhook", "webhook_url": hookURL}})
	wantStatus(t, run, http.StatusOK)
	wfID := str(t, run.Body, "workflow_id")
	secrets["the workflow"] = wfID
	wf := a.waitTerminal(t, key, wfID, 90*time.Second)
	bobRun, bobWF := b.runToEnd(t, bobKey, quick("kept org", nil))
	carlDeliverable, _ := json.Marshal(wf["deliverable"])
	bobDeliverable, _ := json.Marshal(bobWF["deliverable"])
	for i, line := range deliverableLines(string(carlDeliverable), string(bobDeliverable)) {
		if i < 3 {
			secrets["a line of the deliverable"+strings.Repeat("'", i)] = line
		}
	}

	if len(deliverableLines(string(carlDeliverable), string(bobDeliverable))) == 0 {
		t.Fatalf("no line of the deliverable to look for: %s", carlDeliverable)
	}
	// every value looked for afterwards is in the database now
	before := pgDump(t, c.dbURL)
	for what, v := range secrets {
		if !strings.Contains(before, v) {
			t.Errorf("%s (%q) is not in pg_dump before the erasure: the search below would prove nothing", what, v)
		}
	}

	// both instances resolve the owner key (their caches hold it)
	for _, s := range []*server{a, b} {
		wantStatus(t, s.do(t, req{Path: "/api/billing/balance", Key: key}), http.StatusOK)
	}
	id, token := a.requestDeletion(t, deleter{key: key})

	// a read model the erasure cannot write to for now
	conn, err := pgx.Connect(ctx, c.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	lock, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(ctx) //nolint:errcheck
	if _, err := lock.Exec(ctx, `LOCK TABLE folders IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	res := a.do(t, req{Method: http.MethodDelete, Path: confirmPath, Key: key, Body: map[string]any{"request_id": id, "confirmation_token": token}})
	wantError(t, res, http.StatusInternalServerError, "deletion_failed")
	if details, _ := res.Body["error"].(map[string]any)["details"].(map[string]any); details["deletion_request_id"] != id {
		t.Fatalf("deletion_failed does not name the request: %s", res.Raw)
	}
	// at once, on both instances: the keys and the session fail
	for i, s := range []*server{a, b} {
		wantError(t, s.do(t, req{Path: "/api/billing/balance", Key: key}), http.StatusUnauthorized, "invalid_api_key")
		wantError(t, s.do(t, req{Path: "/api/user/me", Key: keys["member"]}), http.StatusUnauthorized, "unauthorized")
		wantError(t, s.do(t, req{Path: "/api/user/me", Header: carl.cookie()}), http.StatusUnauthorized, "unauthorized")
		if t.Failed() {
			t.Fatalf("instance %d still serves the organization", i)
		}
	}
	// half way: its events are gone, its folders are not
	var events, folders int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM events WHERE org_id = $1 AND stream_id <> $2`, carl.OrgID, "deletions-"+carl.OrgID).Scan(&events); err != nil || events != 0 {
		t.Fatalf("%d events of the organization left after the failed attempt (%v)", events, err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM rm_folders_g1 WHERE org_id = $1`, carl.OrgID).Scan(&folders); err != nil || folders == 0 {
		t.Fatalf("%d folders left: the attempt did not stop half way (%v)", folders, err)
	}

	// the instance that ran it dies; the other finishes once the lock goes
	c.kill(t, 0)
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		var status string
		var queued bool
		err := conn.QueryRow(ctx, `SELECT status, EXISTS (SELECT 1 FROM erasures) FROM deletion_requests WHERE request_id = $1`, id).Scan(&status, &queued)
		if err == nil && status == "completed" && !queued {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the erasure did not finish on the other instance: %q %v %v", status, queued, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var record struct {
		org, by  *string
		attempts int
		log      []byte
	}
	if err := conn.QueryRow(ctx, `SELECT org_id::text, requested_by, attempts, deletion_log FROM deletion_requests WHERE request_id = $1`, id).
		Scan(&record.org, &record.by, &record.attempts, &record.log); err != nil {
		t.Fatal(err)
	}
	if record.org != nil || record.by != nil || record.attempts < 2 || !strings.Contains(string(record.log), "events_deleted") {
		t.Fatalf("the anonymized request: org %v by %v attempts %d log %s", record.org, record.by, record.attempts, record.log)
	}

	dump := pgDump(t, c.dbURL)
	for what, v := range secrets {
		if v != "" && strings.Contains(dump, v) {
			t.Errorf("%s (%q) is still in pg_dump of the database", what, v)
		}
	}
	if !strings.Contains(dump, "OrganizationErased") || !strings.Contains(dump, id) {
		t.Error("the erasure left no record")
	}
	if !strings.Contains(dump, bob.OrgID) || !strings.Contains(dump, bob.Email) {
		t.Error("the other organization is not in pg_dump")
	}

	// the other organization is untouched
	wantStatus(t, b.do(t, req{Path: "/api/rigor/status/" + bobRun, Key: bobKey}), http.StatusOK)
	me := b.do(t, req{Path: "/api/user/me", Header: bob.cookie()})
	wantStatus(t, me, http.StatusOK)
	if ms, _ := me.Body["memberships"].([]any); len(ms) != 1 {
		t.Fatalf("bob's memberships: %s", me.Raw)
	}
	live, err := dumpReadModels(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if out := cli(t, c.dbURL, "projections", "rebuild", "--all"); out.Code != 0 {
		t.Fatalf("svc projections rebuild --all: %s", out)
	}
	rebuilt, err := dumpReadModels(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffReadModels(live, rebuilt); diff != "" {
		t.Errorf("the read models rebuilt from the log differ from the live ones:\n%s", diff)
	}
	if out := cli(t, c.dbURL, "replay", "billing", "--all"); out.Code != 0 {
		t.Errorf("svc replay billing --all: %s", out)
	}
}

// deliverableLines are the text lines of a deliverable (its JSON) that are
// long, plain (no JSON escapes) and not in other.
func deliverableLines(deliverable, other string) []string {
	var out []string
	for _, field := range strings.Split(deliverable, `"`) {
		for _, line := range strings.Split(field, `\n`) {
			line = strings.TrimSpace(line)
			if len(line) >= 40 && !strings.ContainsAny(line, `\{}[]`) && !strings.Contains(other, line) {
				out = append(out, line)
			}
		}
	}
	return out
}
