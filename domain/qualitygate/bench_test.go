package qualitygate

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// output100KB is about 100 KB of prose with figures, in lines.
func output100KB() string {
	var b strings.Builder
	for i := 0; b.Len() < 100*1024; i++ {
		fmt.Fprintf(&b, "Paragraph %d: the quarterly revenue grew by %d%% while costs held at %d USD; the team reviewed the pricing model and the rollout plan.\n", i, i%37, 1000+i)
	}
	return b.String()
}

// BenchmarkPatternChecks100KB runs the pattern checks (ten directives of
// every type and a length bound) on a 100 KB output: the p50 of a check
// is reported as p50-ms (target: under 10 ms, docs/benchmarks.md).
func BenchmarkPatternChecks100KB(b *testing.B) {
	out := output100KB()
	var ds []Directive
	for _, d := range [][2]string{
		{"must_include", "rollout plan"}, {"must_include", "executive summary"},
		{"must_not_include", "lorem ipsum"}, {"must_not_include", "CONFIDENTIAL"},
		{"must_contain", "USD"}, {"must_not_contain", "TODO"},
		{"must_match", `grew by \d+%`}, {"must_not_match", `\b(?:guaranteed|risk-free)\b`},
		{"min_length", "500 words"}, {"max_length", "20000 words"},
	} {
		x, err := NewDirective(d[0], d[1], "")
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, x)
	}
	p, err := NewPlan(Request{Directives: ds})
	if err != nil {
		b.Fatal(err)
	}
	times := make([]time.Duration, 0, b.N)
	b.SetBytes(int64(len(out)))
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		r := p.Check(out)
		r.Finish(false, "")
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkSyntax100KB parses 100 KB of code in each language.
func BenchmarkSyntax100KB(b *testing.B) {
	for _, c := range []struct {
		lang Language
		line string
	}{
		{Python, "def f%d(x):\n    return [i * 2 for i in range(x) if i %% 3]\n\n"},
		{JavaScript, "function f%d(x) { return Array.from({length: x}, (_, i) => i * 2); }\n"},
		{TypeScript, "function f%d(x: number): number[] { return Array.from({length: x}, (_, i) => i * 2); }\n"},
	} {
		var sb strings.Builder
		for i := 0; sb.Len() < 100*1024; i++ {
			fmt.Fprintf(&sb, c.line, i)
		}
		code := sb.String()
		p, err := NewPlan(Request{Language: c.lang})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(c.lang), func(b *testing.B) {
			b.SetBytes(int64(len(code)))
			for b.Loop() {
				if r := p.Check(code); len(r.Issues) > 0 {
					b.Fatal(r.Issues)
				}
			}
		})
	}
}
