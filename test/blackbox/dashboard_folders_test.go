package blackbox

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestDashboardFolders: a member creates, renames and deletes a folder
// from the workflow listing; a name already taken reads as a sentence; a
// viewer is offered none of it.
func TestDashboardFolders(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	owner := s.signUpPerson(t, "folders-owner")
	viewer := s.signUpPerson(t, "folders-viewer")
	wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + owner.WorkspaceID + "/members", Header: owner.cookie(),
		Body: map[string]any{"email": viewer.Email, "role": "viewer"}}), http.StatusCreated)
	session := "svc_session=" + owner.Access
	_, _, body := page(t, s, http.MethodGet, "/dashboard/workflows", session, nil, nil)
	token := csrfOf(t, body)

	create := func(name string) string {
		t.Helper()
		code, h, _ := page(t, s, http.MethodPost, "/dashboard/folders", session, url.Values{"csrf_token": {token}, "name": {name}}, nil)
		m := regexp.MustCompile(`^/dashboard/workflows\?folder=([0-9a-f-]{36})$`).FindStringSubmatch(h.Get("Location"))
		if code != http.StatusSeeOther || m == nil {
			t.Fatalf("create %q: %d %v", name, code, h)
		}
		return m[1]
	}
	id := create("Quarterly reports")
	create("Board packs")

	code, _, body := page(t, s, http.MethodGet, "/dashboard/workflows?folder="+id, session, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, "This folder: Quarterly reports") ||
		!strings.Contains(body, `action="/dashboard/folders/`+id+`/rename"`) || !strings.Contains(body, `action="/dashboard/folders/`+id+`/delete"`) {
		t.Fatalf("a folder's listing: %d %.4000s", code, body)
	}
	rename := func(name string) (int, http.Header, string) {
		return page(t, s, http.MethodPost, "/dashboard/folders/"+id+"/rename", session, url.Values{"csrf_token": {token}, "name": {name}}, nil)
	}
	if code, h, _ := rename("Q reports"); code != http.StatusSeeOther || h.Get("Location") != "/dashboard/workflows?folder="+id {
		t.Fatalf("rename: %d %v", code, h)
	}
	if _, _, body := page(t, s, http.MethodGet, "/dashboard/workflows?folder="+id, session, nil, nil); !strings.Contains(body, "This folder: Q reports") {
		t.Errorf("after the rename: %.3000s", body)
	}
	if code, _, body := rename("board packs"); code != http.StatusConflict || !strings.Contains(body, "A folder with this name already exists in this workspace.") {
		t.Errorf("a name taken: %d %.2000s", code, body)
	}

	// the viewer sees the folder's listing, not its controls
	_, _, body = page(t, s, http.MethodGet, "/dashboard/workflows?folder="+id+"&ws="+owner.WorkspaceID, "svc_session="+viewer.Access, nil, nil)
	if strings.Contains(body, "This folder:") || strings.Contains(body, "New folder") {
		t.Errorf("a viewer is offered folder controls: %.3000s", body)
	}

	code, h, _ := page(t, s, http.MethodPost, "/dashboard/folders/"+id+"/delete", session, url.Values{"csrf_token": {token}}, nil)
	if code != http.StatusSeeOther || h.Get("Location") != "/dashboard/workflows?folder_deleted=1" {
		t.Fatalf("delete: %d %v", code, h)
	}
	_, _, body = page(t, s, http.MethodGet, h.Get("Location"), session, nil, nil)
	if !strings.Contains(body, "The folder is deleted") || strings.Contains(body, "Q reports") || !strings.Contains(body, "Board packs") {
		t.Errorf("after the delete: %.3000s", body)
	}
	if code, _, body := page(t, s, http.MethodPost, "/dashboard/folders/"+id+"/delete", session, url.Values{"csrf_token": {token}}, nil); code != http.StatusNotFound ||
		!strings.Contains(body, `role="alert"`) {
		t.Errorf("deleted again: %d %.2000s", code, body)
	}
}
