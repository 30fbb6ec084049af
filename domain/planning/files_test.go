package planning_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"svc/domain/planning"
)

func TestReferencedFilesDetectsPaths(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"The bug is in src/auth/login.go, see README.md.", []string{"src/auth/login.go", "README.md"}},
		{"run ./cmd/main.py then read docs/x.yaml", []string{"cmd/main.py", "docs/x.yaml"}},
		{"`internal/db/pool.go:42` and (pkg/api/handler.go#L10-L20)", []string{"internal/db/pool.go", "pkg/api/handler.go"}},
		{"\"config.json\" and 'main.go'; also main.go again, ./main.go", []string{"config.json", "main.go"}},
		{"the Makefile, build/Dockerfile and .github/workflows/ci.yml", []string{"Makefile", "build/Dockerfile", ".github/workflows/ci.yml"}},
		{"look at ./cmd/svc and src/auth/login and ../shared/spec.md", []string{"cmd/svc", "src/auth/login", "../shared/spec.md"}},
		{"absolute /etc/nginx/nginx.conf and src//auth///x.go", []string{"/etc/nginx/nginx.conf", "src/auth/x.go"}},
		{"assets/logo.svg and data/2024/report.parquet and .env", []string{"assets/logo.svg", "data/2024/report.parquet", ".env"}},
		{"[spec](docs/api/plan.md) and <web/index.html>", []string{"docs/api/plan.md", "web/index.html"}},
	}
	for _, c := range cases {
		if got := planning.ReferencedFiles(c.text); !slices.Equal(got, c.want) {
			t.Errorf("ReferencedFiles(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestReferencedFilesExcludesNonFiles(t *testing.T) {
	for _, text := range []string{
		"see https://example.com/docs/readme.md and http://x.io/a/b.go",
		"mail ops@example.com or git@github.com:org/repo.git",
		"upgrade to 1.2.3 or v2.0.0-rc.1, Go 1.26, version 3.5",
		"visit example.com, www.example.org/page.html or github.com/org/repo/main.go",
		"written in Node.js and ASP.NET with Vue.js",
		"input/output and/or client/server, 24/7, 2024/01/15, 3/4",
		"call POST /api/rigor/plan at 9 a.m., e.g. or i.e. etc.",
		"mailto:x key=value 50% C++ --config -f/--file",
		"",
	} {
		if got := planning.ReferencedFiles(text); len(got) != 0 {
			t.Errorf("ReferencedFiles(%q) = %q, want none", text, got)
		}
	}
}

func TestReferencedFilesIsBoundedAndDeterministic(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "pkg/f%d.go ", i)
	}
	got := planning.ReferencedFiles(b.String())
	if len(got) != planning.MaxReferencedFiles || got[0] != "pkg/f0.go" || got[19] != "pkg/f19.go" {
		t.Fatalf("got %q", got)
	}
	if again := planning.ReferencedFiles(b.String()); !slices.Equal(got, again) {
		t.Fatal("two calls disagree")
	}
}

func TestMatchFile(t *testing.T) {
	res := []planning.Resource{
		{URI: "file:///repo/src/auth/login.go", Name: "login.go"},
		{URI: "repo://docs/x.yaml", Name: "x.yaml"},
		{URI: "https://code.example/raw/README.md", Name: "readme"},
		{URI: "mem:0001", Name: "./cmd/main.py"},
		{URI: "file:///repo/with%20space/a.txt", Name: "a"},
	}
	cases := []struct {
		ref  string
		want bool
	}{
		{"src/auth/login.go", true},
		{"auth/login.go", true},
		{"login.go", true},           // basename
		{"src/auth", true},           // a folder holding a resource
		{"README.md", true},          // basename of a URI path
		{"readme.md", false},         // case-sensitive
		{"Src/auth/login.go", false}, // case-sensitive
		{"th/login.go", false},       // not at a segment boundary
		{"other/login.go", false},    // basename alone is not enough with a directory
		{"docs/x.yaml", true},        // repo://docs/x.yaml
		{"cmd/main.py", true},        // by name, "./" removed
		{"main.py", true},            // basename of the name
		{"with space/a.txt", true},   // unescaped
		{"/repo/src/auth/login.go", true},
		{"missing.go", false},
	}
	for _, c := range cases {
		if got := planning.MatchFile(c.ref, res); got != c.want {
			t.Errorf("MatchFile(%q) = %v, want %v", c.ref, got, c.want)
		}
	}
	if planning.MatchFile("README.md", nil) {
		t.Error("matched against no resources")
	}
}

func TestPlanContextReferencedFiles(t *testing.T) {
	req := func(conns ...planning.Connection) planning.Request {
		return planning.Request{TaskType: "security_audit", Description: "audit our authentication service",
			AdditionalContext: "Start with src/auth/login.go and docs/missing.md.", Connections: conns}
	}
	listed := planning.Connection{ID: "repo", Label: "repo", ServerURL: "https://repo.example/mcp", State: planning.ConnAvailable,
		Listed: true, Resources: []planning.Resource{{URI: "file:///src/auth/login.go", Name: "login.go"}}}

	t.Run("checked against a listing server", func(t *testing.T) {
		plan, err := planning.Build(cat, req(listed))
		if err != nil {
			t.Fatal(err)
		}
		files := plan.Context.ReferencedFiles
		if !slices.Equal(files.Found, []string{"src/auth/login.go"}) || !slices.Equal(files.NotFound, []string{"docs/missing.md"}) {
			t.Fatalf("referenced_files %+v", files)
		}
		if plan.Context.Sufficient {
			t.Error("sufficient with a missing file")
		}
		var hits []planning.Warning
		for _, w := range plan.Warnings {
			if w.Code == "file_not_found" {
				hits = append(hits, w)
			}
		}
		if len(hits) != 1 || !strings.Contains(hits[0].Message, "docs/missing.md") || hits[0].Suggestion == "" {
			t.Fatalf("file_not_found warnings %+v", hits)
		}
	})

	t.Run("every file found", func(t *testing.T) {
		r := req(listed)
		r.AdditionalContext = "see ./src/auth/login.go"
		plan, err := planning.Build(cat, r)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(plan.Context.ReferencedFiles.Found, []string{"src/auth/login.go"}) || len(plan.Context.ReferencedFiles.NotFound) != 0 || !plan.Context.Sufficient {
			t.Fatalf("context %+v", plan.Context)
		}
	})

	t.Run("unverifiable without a listing server", func(t *testing.T) {
		unlisted := listed
		unlisted.Listed, unlisted.Resources = false, nil
		for _, r := range []planning.Request{req(), req(unlisted)} {
			plan, err := planning.Build(cat, r)
			if err != nil {
				t.Fatal(err)
			}
			files := plan.Context.ReferencedFiles
			if files.Found == nil || files.NotFound == nil || len(files.Found)+len(files.NotFound) != 0 {
				t.Fatalf("referenced_files %+v, want two empty lists", files)
			}
			for _, w := range plan.Warnings {
				if w.Code == "file_not_found" {
					t.Fatalf("warning %+v without a listing server", w)
				}
			}
			info := strings.Join(plan.Info, "\n")
			if !strings.Contains(info, "src/auth/login.go, docs/missing.md") || !strings.Contains(info, "not checked") {
				t.Fatalf("info %q", plan.Info)
			}
		}
	})
}
