package injection

import (
	"strings"
	"testing"
)

// benchDoc is an ordinary 8 KB document: a README with paragraphs, code
// and links, and words the rules look for (system, prompt, instructions).
var benchDoc = strings.Repeat(`## Configuration

The service builds the system prompt from the template and the user's
settings. Operators can override the default instructions per workspace;
see https://docs.example.com/config?section=prompts for the details.

`+"```"+`sh
svc serve --addr 127.0.0.1:8080
`+"```"+`

Send questions to the mailing list. Previous releases ignored the
SVC_SYSTEM_PROMPT variable; it is read since 2.3.

`, 40)[:8000]

// BenchmarkScan: one 8 KB document (docs/benchmarks.md).
func BenchmarkScan(b *testing.B) {
	b.SetBytes(int64(len(benchDoc)))
	for b.Loop() {
		Scan(benchDoc)
	}
}

// BenchmarkScanOneLine: the same text as one 8 KB paragraph.
func BenchmarkScanOneLine(b *testing.B) {
	doc := strings.ReplaceAll(benchDoc, "\n", " ")
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		Scan(doc)
	}
}
