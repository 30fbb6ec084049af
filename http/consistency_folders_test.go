package httpapi_test

import (
	"testing"
)

// folderWalks are TestEveryWriteIsReadBack's walks of the folder routes:
// each write is read back from the folder list, or from the workflow
// listing's folder_id filter.
func folderWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	owner, _, wsID := f.signUp(t)
	code, body, _ := f.callAs(t, "POST", "/api/workspaces/"+wsID+"/api-keys", owner, map[string]any{"role": "owner"})
	if code != 201 {
		t.Fatalf("owner key: %d %v", code, body)
	}
	key := body["key"].(string)
	waitKey(t, f, key)
	folders := "/api/workspaces/" + wsID + "/folders"
	n := 0
	create := func(t *testing.T) string {
		t.Helper()
		n++
		code, body, _ := f.callAs(t, "POST", folders, owner, map[string]any{"name": "Walked " + string(rune('A'+n))})
		if code != 201 {
			t.Fatalf("create folder: %d %v", code, body)
		}
		return body["id"].(string)
	}
	listed := func(t *testing.T) map[string]any {
		t.Helper()
		code, body, _ := f.callAs(t, "GET", folders, owner, nil)
		if code != 200 {
			t.Fatalf("folders: %d %v", code, body)
		}
		return ids(body, "folders", "id")
	}
	plan := func(t *testing.T) string {
		t.Helper()
		code, body := f.call(t, "POST", "/api/rigor/plan", key, map[string]any{"task_description": "compare our pricing with three competitors"})
		if code != 200 {
			t.Fatalf("plan: %d %v", code, body)
		}
		return body["plan"].(map[string]any)["workflow_id"].(string)
	}
	inFolder := func(t *testing.T, folderID, id string) bool {
		t.Helper()
		code, body := f.call(t, "GET", "/api/rigor/workflows?limit=100&folder_id="+folderID, key, nil)
		if code != 200 {
			t.Fatalf("listing: %d %v", code, body)
		}
		_, ok := ids(body, "workflows", "workflow_id")[id]
		return ok
	}
	move := func(t *testing.T, folderID, id string) {
		t.Helper()
		if code, body, _ := f.callAs(t, "POST", folders+"/"+folderID+"/workflows", owner, map[string]any{"workflow_ids": []string{id}}); code != 200 {
			t.Fatalf("move: %d %v", code, body)
		}
	}
	return map[string]func(t *testing.T){
		"POST workspaces.folders.create": func(t *testing.T) {
			id := create(t)
			if _, ok := listed(t)[id]; !ok {
				t.Fatal("a created folder is not listed at once")
			}
		},
		"PATCH workspaces.folders.rename": func(t *testing.T) {
			id := create(t)
			if code, body, _ := f.callAs(t, "PATCH", folders+"/"+id, owner, map[string]any{"name": "Renamed folder"}); code != 200 || body["name"] != "Renamed folder" {
				t.Fatalf("rename: %d %v", code, body)
			}
			if got := listed(t)[id].(map[string]any)["name"]; got != "Renamed folder" {
				t.Fatalf("listed as %v right after the rename", got)
			}
		},
		"DELETE workspaces.folders.delete": func(t *testing.T) {
			id := create(t)
			wf := plan(t)
			move(t, id, wf)
			if code, body, _ := f.callAs(t, "DELETE", folders+"/"+id, owner, nil); code != 200 {
				t.Fatalf("delete: %d %v", code, body)
			}
			if _, ok := listed(t)[id]; ok {
				t.Fatal("a deleted folder is still listed")
			}
			if !inFolder(t, "unassigned", wf) {
				t.Fatal("a deleted folder's workflow is not unassigned at once")
			}
		},
		"POST workspaces.folders.workflows.add": func(t *testing.T) {
			id, wf := create(t), plan(t)
			move(t, id, wf)
			if !inFolder(t, id, wf) || inFolder(t, "unassigned", wf) {
				t.Fatal("a moved workflow is not listed in its folder at once")
			}
		},
		"DELETE workspaces.folders.workflows.remove": func(t *testing.T) {
			id, wf := create(t), plan(t)
			move(t, id, wf)
			if code, body, _ := f.callAs(t, "DELETE", folders+"/"+id+"/workflows/"+wf, owner, nil); code != 200 {
				t.Fatalf("remove: %d %v", code, body)
			}
			if inFolder(t, id, wf) || !inFolder(t, "unassigned", wf) {
				t.Fatal("a removed workflow is still listed in its folder")
			}
		},
	}
}
