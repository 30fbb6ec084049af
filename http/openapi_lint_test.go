package httpapi

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestOpenAPILint loads the document with kin-openapi (pinned in go.mod)
// and validates it as OpenAPI 3.1: its structure, every schema as JSON
// Schema 2020-12, every $ref, and every example (recorded from real
// answers) against its schema, formats and patterns included.
func TestOpenAPILint(t *testing.T) {
	raw, err := routedServer().openAPI()
	if err != nil {
		t.Fatal(err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		t.Fatalf("kin-openapi cannot load the document: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %q, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableMultiError(), openapi3.EnableExamplesValidation(),
		openapi3.EnableSchemaFormatValidation(), openapi3.EnableSchemaPatternValidation()); err != nil {
		t.Fatalf("the document is not valid OpenAPI 3.1:\n%v", err)
	}
}

// redoclyConfig is the Redocly ruleset: recommended, every warning an
// error, less two rules that do not fit: the sign-in and OAuth callbacks
// answer 302 (no 2XX), and the alternatives of a oneOf exclude each other
// by their required fields and additionalProperties: false, which
// no-illogical-composition-keywords does not read. Examples are checked
// with JSON Schema's own rule for objects (open unless a schema closes
// them; the answers' schemas do), not Redocly's default of closing every
// object, which would refuse the refinement of an error's code.
const redoclyConfig = `extends:
  - recommended-strict
rules:
  operation-2xx-response: off
  no-illogical-composition-keywords: off
  no-invalid-media-type-examples:
    severity: error
    allowAdditionalProperties: true
`

// TestOpenAPIRedoclyLint lints the document with Redocly CLI, pinned in
// the Makefile (REDOCLY_VERSION; make tools installs it into bin/ when npm
// exists). Without node, or before make tools, it is skipped, saying so.
func TestOpenAPIRedoclyLint(t *testing.T) {
	bin := os.Getenv("REDOCLY_BIN")
	if bin == "" {
		bin = filepath.Join("..", "bin", "redocly", "node_modules", ".bin", "redocly")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("SKIPPED: node is not installed, so Redocly CLI cannot lint the OpenAPI document (kin-openapi's validation still ran)")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("SKIPPED: Redocly CLI is not installed at %s: run make tools (it needs npm)", bin)
	}
	raw, err := routedServer().openAPI()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	doc, cfg := filepath.Join(dir, "openapi.json"), filepath.Join(dir, "redocly.yaml")
	if err := os.WriteFile(doc, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(redoclyConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "lint", "--config", cfg, "--format", "stylish", doc)
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("redocly lint: %v\n%s", err, out)
	}
}
