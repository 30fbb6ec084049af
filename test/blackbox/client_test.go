package blackbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The Go client generator and its runtime, pinned: run with go run
// MOD@VERSION, a test-only tool outside go.mod.
const (
	oapiCodegen        = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"
	oapiRuntimeModule  = "github.com/oapi-codegen/runtime"
	oapiRuntimeVersion = "v1.8.0"
)

// TestGeneratedClient generates a Go client from the running server's
// GET /openapi.json with oapi-codegen and runs sign-up, plan, execute and
// status through it against svc serve (testdata/genclient/main.go), in a
// module of its own: the document is complete enough to program against.
// It needs the Go module proxy (or a module cache holding those modules).
func TestGeneratedClient(t *testing.T) {
	s := sharedServer(t)
	dir := t.TempDir()
	doc := s.do(t, req{Path: "/openapi.json"})
	wantStatus(t, doc, 200)
	program, err := os.ReadFile(filepath.Join("testdata", "genclient", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	goMod := "module gentest\n\ngo 1.26\n\nrequire " + oapiRuntimeModule + " " + oapiRuntimeVersion + "\n"
	config := "package: client\ngenerate:\n  client: true\n  models: true\noutput: client/client.gen.go\n"
	for name, content := range map[string][]byte{"openapi.json": doc.Raw, "main.go": program, "go.mod": []byte(goMod),
		"oapi-codegen.yaml": []byte(config)} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "client"), 0o755); err != nil {
		t.Fatal(err)
	}
	goTool(t, dir, "run", oapiCodegen, "-config", "oapi-codegen.yaml", "openapi.json")
	goTool(t, dir, "mod", "tidy")
	out := goTool(t, dir, "run", ".", s.base, nextIP())
	t.Logf("the generated client:\n%s", out)
}

// goTool runs the go command in dir (a module of its own, not this one's
// workspace or flags) and returns its output; it fails the test on an
// error.
func goTool(t *testing.T, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := exec.LookPath("go")
	if err != nil {
		bin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
