package mail

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

func TestOpen(t *testing.T) {
	const from = "Svc <no-reply@example.com>"
	for _, tc := range []struct {
		url, from string
		wantErr   bool
		want      any
	}{
		{url: "", want: &logSender{}},
		{url: "smtp://127.0.0.1:2525", from: from, want: &smtpSender{}},
		{url: "smtp://user:pass@mail.example.com:587", from: from, want: &smtpSender{}},
		{url: "smtp://[::1]:25", from: from, want: &smtpSender{}},
		{url: "smtps://mail.example.com:465", from: from, wantErr: true},
		{url: "http://mail.example.com:25", from: from, wantErr: true},
		{url: "smtp://mail.example.com", from: from, wantErr: true},
		{url: "smtp://:25", from: from, wantErr: true},
		{url: "::bad", from: from, wantErr: true},
		{url: "mail.example.com:25", from: from, wantErr: true},
		{url: "smtp://127.0.0.1:25", from: "", wantErr: true},
		{url: "smtp://127.0.0.1:25", from: "not an address", wantErr: true},
	} {
		s, err := Open(tc.url, tc.from, nil)
		if tc.wantErr {
			if err == nil {
				t.Errorf("Open(%q, %q) = %T, want error", tc.url, tc.from, s)
			}
			continue
		}
		if err != nil {
			t.Errorf("Open(%q, %q): %v", tc.url, tc.from, err)
			continue
		}
		switch tc.want.(type) {
		case *logSender:
			if _, ok := s.(*logSender); !ok {
				t.Errorf("Open(%q) = %T, want *logSender", tc.url, s)
			}
		case *smtpSender:
			if _, ok := s.(*smtpSender); !ok {
				t.Errorf("Open(%q) = %T, want *smtpSender", tc.url, s)
			}
		}
	}

	s, err := Open("smtp://user:p%40ss@mail.example.com:587", from, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := s.(*smtpSender)
	if got.addr != "mail.example.com:587" || got.host != "mail.example.com" ||
		got.user != "user" || got.pass != "p@ss" || got.from.Address != "no-reply@example.com" {
		t.Errorf("Open parsed %+v", got)
	}
}

func TestLogSender(t *testing.T) {
	var buf bytes.Buffer
	s, err := Open("", "", slog.New(slog.NewJSONHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	m := Message{
		To:      "alice@example.org",
		Subject: "Verify your email",
		Body:    "Hello,\nverify: https://svc.example/verify?token=abc&x=1\n",
	}
	if err := s.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("want one JSON record, got %q: %v", buf.String(), err)
	}
	want := map[string]any{
		"level":   "INFO",
		"msg":     "mail not sent (SVC_SMTP_URL unset)",
		"to":      m.To,
		"subject": m.Subject,
		"body":    m.Body,
	}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("record[%q] = %q, want %q", k, rec[k], v)
		}
	}
}
