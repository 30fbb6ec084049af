package blackbox

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// TestFolders: a workspace's folders (list, create, rename, delete) and
// putting workflows into them, read back through the workflow listing's
// folder_id filter; every error code, another organization's 404s and a
// viewer's 403s.
func TestFolders(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	p := s.signUpPerson(t, "folders")
	as := func(who person, method, path string, body any) *response {
		return s.do(t, req{Method: method, Path: path, Header: who.cookie(), Body: body})
	}
	do := func(method, path string, body any) *response { return as(p, method, path, body) }
	folders := "/api/workspaces/" + p.WorkspaceID + "/folders"

	empty := do(http.MethodGet, folders, nil)
	wantStatus(t, empty, http.StatusOK)
	if !strings.Contains(string(empty.Raw), `"folders":[]`) {
		t.Fatalf("no folders: %s", empty.Raw)
	}

	// create
	create := func(name string) map[string]any {
		t.Helper()
		res := do(http.MethodPost, folders, map[string]any{"name": name})
		wantStatus(t, res, http.StatusCreated)
		if len(res.Body) != 3 || str(t, res.Body, "name") != strings.TrimSpace(name) || str(t, res.Body, "created_at") == "" {
			t.Fatalf("created folder %s", res.Raw)
		}
		uuidField(t, res.Body, "id")
		return res.Body
	}
	reports := create("  Q3 Reports ")
	reportsID := reports["id"].(string)
	wantError(t, do(http.MethodPost, folders, map[string]any{"name": "q3   REPORTS"}), http.StatusConflict, "folder_name_taken")
	wantError(t, do(http.MethodPost, folders, map[string]any{}), http.StatusBadRequest, "missing_field")
	wantError(t, do(http.MethodPost, folders, map[string]any{"name": "  "}), http.StatusBadRequest, "missing_field")
	wantError(t, do(http.MethodPost, folders, map[string]any{"name": strings.Repeat("é", 101)}), http.StatusBadRequest, "invalid_body")
	wantError(t, do(http.MethodPost, folders, map[string]any{"name": 5}), http.StatusBadRequest, "invalid_body")
	wantError(t, do(http.MethodPost, folders, `{"name":`), http.StatusBadRequest, "invalid_body")
	create(strings.Repeat("é", 100))
	drafts := create("drafts")
	draftsID := drafts["id"].(string)

	list := do(http.MethodGet, folders, nil)
	wantStatus(t, list, http.StatusOK)
	var names []string
	for _, raw := range list.Body["folders"].([]any) {
		f := raw.(map[string]any)
		names = append(names, str(t, f, "name"))
		if f["id"] == reportsID && (len(f) != 3 || f["created_at"] != reports["created_at"]) {
			t.Errorf("listed folder %v, created %v", f, reports)
		}
	}
	if !reflect.DeepEqual(names, []string{"drafts", "Q3 Reports", strings.Repeat("é", 100)}) {
		t.Fatalf("folders by name: %v", names)
	}

	// rename
	wantError(t, do(http.MethodPatch, folders+"/"+draftsID, map[string]any{"name": "Q3 reports"}), http.StatusConflict, "folder_name_taken")
	wantError(t, do(http.MethodPatch, folders+"/"+draftsID, map[string]any{}), http.StatusBadRequest, "missing_field")
	wantError(t, do(http.MethodPatch, folders+"/"+draftsID, map[string]any{"name": strings.Repeat("x", 101)}), http.StatusBadRequest, "invalid_body")
	wantError(t, do(http.MethodPatch, folders+"/00000000-0000-4000-8000-000000000000", map[string]any{"name": "x"}), http.StatusNotFound, "not_found")
	wantError(t, do(http.MethodPatch, folders+"/not-a-folder", map[string]any{"name": "x"}), http.StatusNotFound, "not_found")
	renamed := do(http.MethodPatch, folders+"/"+reportsID, map[string]any{"name": "Archive"})
	wantStatus(t, renamed, http.StatusOK)
	if renamed.Body["id"] != reportsID || renamed.Body["name"] != "Archive" || renamed.Body["created_at"] != reports["created_at"] || len(renamed.Body) != 3 {
		t.Fatalf("renamed %s", renamed.Raw)
	}
	wantStatus(t, do(http.MethodPatch, folders+"/"+draftsID, map[string]any{"name": "Drafts"}), http.StatusOK) // case only
	reports2 := create("Q3 reports")                                                                           // the old name is free
	archiveID := reportsID

	// workflows into folders
	key := s.keyWithRole(t, p, p.WorkspaceID, "member")
	tag := "fd" + randomHex(4)
	w1 := s.planStored(t, key, competitive(tag+" one", nil))
	w2 := s.planStored(t, key, competitive(tag+" two", nil))
	w3 := s.planStored(t, key, competitive(tag+" three", nil))
	s.waitListed(t, key, 3)
	inFolder := func(folderID string, want ...string) {
		t.Helper()
		body, ids := s.listWorkflows(t, key, "limit=100&folder_id="+folderID)
		if want == nil {
			want = []string{}
		}
		if ids == nil {
			ids = []string{}
		}
		if !reflect.DeepEqual(ids, want) || integer(t, object(t, body, "pagination"), "total_count") != int64(len(want)) {
			t.Errorf("folder_id=%s lists %v, want %v", folderID, ids, want)
		}
		for _, w := range body["workflows"].([]any) {
			if _, ok := w.(map[string]any)["folder_id"]; ok {
				t.Errorf("a summary field spec A does not show: %v", w)
			}
		}
	}
	inFolder("unassigned", w3, w2, w1)
	moved := do(http.MethodPost, folders+"/"+archiveID+"/workflows", map[string]any{"workflow_ids": []string{w1, w2, w1}})
	wantStatus(t, moved, http.StatusOK)
	if moved.Body["folder_id"] != archiveID || !reflect.DeepEqual(moved.Body["workflow_ids"], []any{w1, w2}) || len(moved.Body) != 2 {
		t.Fatalf("moved %s", moved.Raw)
	}
	inFolder(archiveID, w2, w1)
	inFolder("unassigned", w3)
	inFolder(draftsID)
	inFolder("00000000-0000-4000-8000-000000000000")
	inFolder("fld_123")
	wantStatus(t, do(http.MethodPost, folders+"/"+draftsID+"/workflows", map[string]any{"workflow_ids": []string{w2}}), http.StatusOK)
	inFolder(archiveID, w1)
	inFolder(draftsID, w2)
	wantStatus(t, do(http.MethodPost, folders+"/"+draftsID+"/workflows", map[string]any{"workflow_ids": []string{w2}}), http.StatusOK) // already there

	// move errors: nothing moves
	moveTo := folders + "/" + str(t, reports2, "id") + "/workflows"
	wantError(t, do(http.MethodPost, moveTo, map[string]any{}), http.StatusBadRequest, "missing_field")
	wantError(t, do(http.MethodPost, moveTo, map[string]any{"workflow_ids": []string{}}), http.StatusBadRequest, "invalid_body")
	wantError(t, do(http.MethodPost, moveTo, map[string]any{"workflow_ids": "x"}), http.StatusBadRequest, "invalid_body")
	wantError(t, do(http.MethodPost, moveTo, map[string]any{"workflow_ids": make([]string, 101)}), http.StatusBadRequest, "invalid_body")
	unknown := do(http.MethodPost, moveTo, map[string]any{"workflow_ids": []string{w3, "wr_" + strings.Repeat("0", 32)}})
	wantError(t, unknown, http.StatusNotFound, "not_found")
	if d, _ := unknown.Body["error"].(map[string]any)["details"].(map[string]any); d["workflow_id"] != "wr_"+strings.Repeat("0", 32) {
		t.Errorf("details %v, want the unknown workflow_id", d)
	}
	wantError(t, do(http.MethodPost, folders+"/00000000-0000-4000-8000-000000000000/workflows", map[string]any{"workflow_ids": []string{w3}}), http.StatusNotFound, "not_found")
	inFolder("unassigned", w3)

	// take out
	wantError(t, do(http.MethodDelete, folders+"/"+archiveID+"/workflows/"+w2, nil), http.StatusNotFound, "not_found") // it is in drafts
	wantError(t, do(http.MethodDelete, folders+"/"+archiveID+"/workflows/nope", nil), http.StatusNotFound, "not_found")
	out := do(http.MethodDelete, folders+"/"+draftsID+"/workflows/"+w2, nil)
	wantStatus(t, out, http.StatusOK)
	if out.Body["success"] != true {
		t.Fatalf("removed %s", out.Raw)
	}
	inFolder(draftsID)
	inFolder("unassigned", w3, w2)

	// another organization: 404, revealing nothing; its ids do not work here
	q := s.signUpPerson(t, "folders-other")
	theirKey := s.keyWithRole(t, q, q.WorkspaceID, "member")
	theirs := s.planStored(t, theirKey, competitive(tag+" theirs", nil))
	for _, res := range []*response{
		as(q, http.MethodGet, folders, nil),
		as(q, http.MethodPost, folders, map[string]any{"name": "Mine"}),
		as(q, http.MethodPatch, folders+"/"+archiveID, map[string]any{"name": "Mine"}),
		as(q, http.MethodDelete, folders+"/"+archiveID, nil),
		as(q, http.MethodPost, folders+"/"+archiveID+"/workflows", map[string]any{"workflow_ids": []string{theirs}}),
		as(q, http.MethodDelete, folders+"/"+archiveID+"/workflows/"+w1, nil),
		as(q, http.MethodPatch, "/api/workspaces/"+q.WorkspaceID+"/folders/"+archiveID, map[string]any{"name": "Mine"}),
		do(http.MethodPost, folders+"/"+archiveID+"/workflows", map[string]any{"workflow_ids": []string{theirs}}),
	} {
		wantError(t, res, http.StatusNotFound, "not_found")
		if strings.Contains(string(res.Raw), "Archive") || strings.Contains(string(res.Raw), tag) {
			t.Errorf("a 404 reveals a name: %s", res.Raw)
		}
	}
	if _, ids := s.listWorkflows(t, theirKey, "folder_id="+archiveID); len(ids) != 0 {
		t.Errorf("another org's folder_id lists %v", ids)
	}

	// a viewer reads, and may not write; a member key may
	viewer := s.keyWithRole(t, p, p.WorkspaceID, "viewer")
	asKey := func(k, method, path string, body any) *response {
		return s.do(t, req{Method: method, Path: path, Key: k, Body: body})
	}
	wantStatus(t, asKey(viewer, http.MethodGet, folders, nil), http.StatusOK)
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{http.MethodPost, folders, map[string]any{"name": "Viewer"}},
		{http.MethodPatch, folders + "/" + draftsID, map[string]any{"name": "Viewer"}},
		{http.MethodDelete, folders + "/" + draftsID, nil},
		{http.MethodPost, folders + "/" + draftsID + "/workflows", map[string]any{"workflow_ids": []string{w3}}},
		{http.MethodDelete, folders + "/" + archiveID + "/workflows/" + w1, nil},
	} {
		res := asKey(viewer, c.method, c.path, c.body)
		wantError(t, res, http.StatusForbidden, "forbidden")
		if d, _ := res.Body["error"].(map[string]any)["details"].(map[string]any); d["required_role"] != "member" {
			t.Errorf("%s %s as a viewer: %s", c.method, c.path, res.Raw)
		}
	}
	wantStatus(t, asKey(key, http.MethodPost, folders, map[string]any{"name": "By a key"}), http.StatusCreated)
	wantError(t, s.do(t, req{Path: folders}), http.StatusUnauthorized, "unauthorized")

	// another workspace of the organization: its folders hold its own
	// workflows only, and this workspace's folders are not found there
	setTier(t, s, p, "team")
	second := do(http.MethodPost, "/api/workspaces", map[string]any{"name": "Second"})
	wantStatus(t, second, http.StatusCreated)
	other := "/api/workspaces/" + str(t, second.Body, "id") + "/folders"
	elsewhere := do(http.MethodPost, other, map[string]any{"name": "Archive"}) // names are per workspace
	wantStatus(t, elsewhere, http.StatusCreated)
	wantError(t, do(http.MethodPost, other+"/"+str(t, elsewhere.Body, "id")+"/workflows", map[string]any{"workflow_ids": []string{w3}}), http.StatusNotFound, "not_found")
	wantError(t, do(http.MethodDelete, other+"/"+archiveID, nil), http.StatusNotFound, "not_found")
	// an archived workspace's folders are read-only
	wantStatus(t, do(http.MethodDelete, "/api/workspaces/"+str(t, second.Body, "id"), nil), http.StatusOK)
	wantError(t, do(http.MethodPost, other, map[string]any{"name": "Late"}), http.StatusBadRequest, "invalid_body")
	wantError(t, do(http.MethodDelete, other+"/"+str(t, elsewhere.Body, "id"), nil), http.StatusBadRequest, "invalid_body")
	if l := do(http.MethodGet, other, nil); l.Status != http.StatusOK || len(l.Body["folders"].([]any)) != 1 {
		t.Fatalf("an archived workspace's folders: %s", l.Raw)
	}

	// delete: the folder's workflows are in no folder, its name is free
	gone := do(http.MethodDelete, folders+"/"+archiveID, nil)
	wantStatus(t, gone, http.StatusOK)
	if gone.Body["success"] != true {
		t.Fatalf("deleted %s", gone.Raw)
	}
	inFolder(archiveID)
	inFolder("unassigned", w3, w2, w1)
	wantError(t, do(http.MethodDelete, folders+"/"+archiveID, nil), http.StatusNotFound, "not_found")
	wantError(t, do(http.MethodPost, folders+"/"+archiveID+"/workflows", map[string]any{"workflow_ids": []string{w1}}), http.StatusNotFound, "not_found")
	create("archive")
	wantError(t, do(http.MethodDelete, folders+"/"+draftsID, `{"x":`), http.StatusBadRequest, "invalid_body")
}
