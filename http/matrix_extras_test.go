package httpapi_test

import "svc/domain/apikey"

// noFolder is the path of a folder that does not exist, under a workspace.
const noFolder = "/folders/00000000-0000-4000-8000-000000000000"

// matrixExtras are role-matrix rows of routes added beside the workspace
// routes (folders, audit log ...), keyed "METHOD name"; w is the tested
// workspace's path.
func matrixExtras(w string) map[string]route {
	return map[string]route{
		"GET workspaces.audit_log": {path: w + "/audit-log", floor: apikey.Admin, spec: "B", foreign: true},
		// folders: an unknown folder (404 at the floor), bodies missing a field
		"GET workspaces.folders.list":                {path: w + "/folders", spec: "B", foreign: true},
		"POST workspaces.folders.create":             {path: w + "/folders", floor: apikey.Member, spec: "B", body: map[string]any{}, foreign: true},
		"PATCH workspaces.folders.rename":            {path: w + noFolder, floor: apikey.Member, spec: "B", body: map[string]any{}, foreign: true},
		"DELETE workspaces.folders.delete":           {path: w + noFolder, floor: apikey.Member, spec: "B", foreign: true},
		"POST workspaces.folders.workflows.add":      {path: w + noFolder + "/workflows", floor: apikey.Member, spec: "B", body: map[string]any{}, foreign: true},
		"DELETE workspaces.folders.workflows.remove": {path: w + noFolder + "/workflows/wr_x", floor: apikey.Member, spec: "B", foreign: true},
	}
}
