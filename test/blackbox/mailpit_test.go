package blackbox

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// mailpit is the real SMTP server every server of these tests sends its
// mail through (SVC_SMTP_URL); the tests read the mail back through its
// HTTP API. The Makefile installs the pinned binary (MAILPIT_BIN).
var mailpit struct {
	smtp  string // smtp://127.0.0.1:PORT
	api   string // http://127.0.0.1:PORT
	child *child
}

// startMailpit starts mailpit on free ports (startChild), storing its
// mail in dir.
func startMailpit(dir string) error {
	bin := os.Getenv("MAILPIT_BIN")
	if bin == "" {
		bin = filepath.Join("..", "..", "bin", "mailpit")
	}
	c, addrs, err := startChild("mailpit", bin, 2, func(a []string) []string {
		return []string{"--smtp", a[0], "--listen", a[1], "--database", filepath.Join(dir, "mailpit.db"),
			"--max", "20000", "--quiet", "--disable-version-check"}
	}, func(a []string) bool {
		res, err := http.Get("http://" + a[1] + "/api/v1/info")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	if err != nil {
		return err
	}
	mailpit.child, mailpit.smtp, mailpit.api = c, "smtp://"+addrs[0], "http://"+addrs[1]
	return nil
}

func stopMailpit() { mailpit.child.stop() }

// mailMessage is a message as mailpit's API gives it.
type mailMessage struct {
	ID      string `json:"ID"`
	Subject string `json:"Subject"`
	Text    string `json:"Text"`
	To      []struct {
		Address string `json:"Address"`
	} `json:"To"`
}

// mailsTo returns the messages mailpit holds for address, newest first.
func mailsTo(t testing.TB, address string) []mailMessage {
	t.Helper()
	var list struct {
		Messages []mailMessage `json:"messages"`
	}
	getJSON(t, mailpit.api+"/api/v1/search?query="+url.QueryEscape("to:\""+address+"\""), &list)
	out := make([]mailMessage, 0, len(list.Messages))
	for _, m := range list.Messages {
		var full mailMessage
		getJSON(t, mailpit.api+"/api/v1/message/"+m.ID, &full)
		out = append(out, full)
	}
	return out
}

func getJSON(t testing.TB, u string, v any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("mailpit: %v", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("mailpit: GET %s: %s", u, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("mailpit: %v", err)
	}
}

// mailedLink waits until a mail to address whose subject matches subject
// arrives, and returns the first URL in it that matches link.
func mailedLink(t testing.TB, address string, subject, link *regexp.Regexp) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, m := range mailsTo(t, address) {
			if !subject.MatchString(m.Subject) {
				continue
			}
			if l := link.FindString(m.Text); l != "" {
				return l
			}
			t.Fatalf("mail %q to %s has no link matching %s: %q", m.Subject, address, link, m.Text)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no mail matching %s to %s within 20 s", subject, address)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
