package blackbox

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser is a headless Chromium driven over the DevTools protocol
// (chromedp), for the dashboard's tests. Every host but 127.0.0.1 is
// unresolvable, so a page that loaded anything from elsewhere would
// break; what the pages write to the console as errors (a refused inline
// script, a style the Content-Security-Policy blocks, an exception) is
// kept, and a test fails on it (noConsoleErrors).
type browser struct {
	t   *testing.T
	ctx context.Context

	mu      sync.Mutex
	console []string
}

// newBrowser starts Chromium for t, or skips t, saying why, where none is
// installed (.ci/run installs Debian's chromium; the Makefile says when
// it is missing).
func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := chromium()
	if path == "" {
		t.Skip("SKIPPED: no chromium, chromium-browser or google-chrome on PATH: the dashboard was not tested in a browser (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1440, 900), chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	base, cancelBase := context.WithTimeout(context.Background(), 5*time.Minute)
	alloc, cancelAlloc := chromedp.NewExecAllocator(base, opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelCtx(); cancelAlloc(); cancelBase() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	b := &browser{t: t, ctx: ctx}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.mu.Lock()
				b.console = append(b.console, m.String())
				b.mu.Unlock()
			}
		}
	}()
	return b
}

// do runs actions, failing the test on an error.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v\nthe page: %.3000s", what, err, b.pageText())
	}
}

// waitFor waits until the JavaScript expression is truthy. It asks
// again every 100 ms, across navigations (a page being replaced has no
// context to evaluate in for a moment).
func (b *browser) waitFor(what, expr string, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for {
		var ok bool
		if ok, err = chromedp.Run(b.ctx, chromedp.Evaluate[bool]("!!("+expr+")")); err == nil && ok {
			return
		}
		if time.Now().After(deadline) || b.ctx.Err() != nil {
			b.t.Fatalf("%s (waited %s for %s; last error %v)\nthe page: %.3000s", what, timeout, expr, err, b.pageText())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// reloadUntil reloads the page every second until the JavaScript
// expression is truthy (a listing that follows the read models).
func (b *browser) reloadUntil(what, expr string, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("!!("+expr+")"))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) || b.ctx.Err() != nil {
			b.t.Fatalf("%s (reloaded for %s until %s; last error %v)\nthe page: %.3000s", what, timeout, expr, err, b.pageText())
		}
		time.Sleep(time.Second)
		_ = chromedp.Do(b.ctx, chromedp.Reload())
	}
}

// waitText waits until the element of the CSS selector holds text.
func (b *browser) waitText(sel, text string, timeout time.Duration) {
	b.t.Helper()
	b.waitFor("the page shows "+strconv.Quote(text),
		"(function(){var e=document.querySelector("+strconv.Quote(sel)+");return !!e&&e.textContent.indexOf("+strconv.Quote(text)+")>=0;})()", timeout)
}

// eval evaluates a JavaScript expression.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// pageText is the visible text of the page, for failure messages.
func (b *browser) pageText() string {
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return v
}

// checkPage checks what every page must be: each control has a label,
// and nothing is wider than the viewport.
func (b *browser) checkPage(name string) {
	b.t.Helper()
	unlabelled := eval[[]string](b, `Array.from(document.querySelectorAll('input:not([type=hidden]),select,textarea,button'))
		.filter(function(e){ return e.tagName === 'BUTTON' ? !e.textContent.trim() : !(e.labels && e.labels.length) && !e.getAttribute('aria-label'); })
		.map(function(e){ return e.outerHTML.slice(0, 120); })`)
	if len(unlabelled) > 0 {
		b.t.Errorf("%s: controls without a label: %v", name, unlabelled)
	}
	if w := eval[[]int](b, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1] {
		b.t.Errorf("%s: the page is %d px wide in a %d px window", name, w[0], w[1])
	}
}

// screenshot writes the viewport as docs/screenshots/<name>.png (the
// README shows some of them).
func (b *browser) screenshot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := filepath.Join("..", "..", "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// noConsoleErrors fails the test for every error the pages logged.
func (b *browser) noConsoleErrors() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		b.t.Errorf("the browser logged: %s", m)
	}
}

// signUp creates an account through the signup page (name, email and
// password) and waits for the workflows it lands on.
func (b *browser) signUp(s *server, name, email, password string) {
	b.t.Helper()
	b.do("open the signup page", chromedp.Navigate(s.base+"/dashboard/signup"))
	b.waitText("h1", "Sign up", 30*time.Second)
	b.do("sign up as "+name,
		chromedp.SendKeys(chromedp.ID("name"), name),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Submit(chromedp.ID("password")))
	b.waitText("h1", "Workflows", 30*time.Second)
}

// jsString quotes s for a JavaScript expression.
func jsString(s string) string { return strconv.Quote(strings.ToValidUTF8(s, "")) }
