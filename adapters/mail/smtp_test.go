package mail

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeSMTP is a minimal SMTP server recording what it receives.
type fakeSMTP struct {
	addr    string
	rcptErr bool // answer 550 to RCPT TO
	auth    bool // advertise and accept AUTH PLAIN
	mu      sync.Mutex
	from    string // MAIL FROM argument
	rcpt    string // RCPT TO argument
	creds   string // decoded AUTH PLAIN response
	data    string // raw DATA, dot-stuffing removed, CRLFs kept
}

func startFakeSMTP(t *testing.T, configure func(*fakeSMTP)) *fakeSMTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeSMTP{addr: ln.Addr().String()}
	if configure != nil {
		configure(f)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { f.serve(conn) })
		}
	})
	return f
}

func (f *fakeSMTP) serve(conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(conn)
	reply := func(s string) { io.WriteString(conn, s+"\r\n") }
	reply("220 fake ESMTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(line, " ")
		f.mu.Lock()
		switch strings.ToUpper(verb) {
		case "EHLO":
			if f.auth {
				reply("250-fake")
				reply("250 AUTH PLAIN")
			} else {
				reply("250 fake")
			}
		case "HELO", "NOOP", "RSET":
			reply("250 ok")
		case "AUTH":
			b, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(arg, "PLAIN "))
			f.creds = string(b)
			reply("235 ok")
		case "MAIL":
			f.from = arg
			reply("250 ok")
		case "RCPT":
			f.rcpt = arg
			if f.rcptErr {
				reply("550 no such user")
			} else {
				reply("250 ok")
			}
		case "DATA":
			reply("354 go ahead")
			var data strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					f.mu.Unlock()
					return
				}
				if l == ".\r\n" {
					break
				}
				data.WriteString(strings.TrimPrefix(l, "."))
			}
			f.data = data.String()
			reply("250 queued")
		case "QUIT":
			reply("221 bye")
			f.mu.Unlock()
			return
		default:
			reply("502 not implemented")
		}
		f.mu.Unlock()
	}
}

func (f *fakeSMTP) received() (from, rcpt, creds, data string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.from, f.rcpt, f.creds, f.data
}

func openFake(t *testing.T, f *fakeSMTP, userinfo string) Sender {
	t.Helper()
	s, err := Open("smtp://"+userinfo+f.addr, "Svc <no-reply@example.com>", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSMTPSend(t *testing.T) {
	f := startFakeSMTP(t, nil)
	body := "Hello,\nverify: https://svc.example/verify?token=abc&x=1\n.leading dot\n"
	m := Message{To: "alice@example.org", Subject: "Verify your email", Body: body}
	if err := openFake(t, f, "").Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	from, rcpt, _, data := f.received()
	if from != "FROM:<no-reply@example.com>" || rcpt != "TO:<alice@example.org>" {
		t.Errorf("envelope = %q, %q", from, rcpt)
	}
	if strings.Contains(strings.ReplaceAll(data, "\r\n", ""), "\n") {
		t.Errorf("bare LF in message:\n%q", data)
	}
	msg, err := netmail.ReadMessage(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"From":         `"Svc" <no-reply@example.com>`,
		"To":           "alice@example.org",
		"Subject":      "Verify your email",
		"Mime-Version": "1.0",
		"Content-Type": "text/plain; charset=utf-8",
	} {
		if got := msg.Header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if _, err := msg.Header.Date(); err != nil {
		t.Errorf("Date: %v", err)
	}
	if id := msg.Header.Get("Message-Id"); !strings.HasSuffix(id, "@example.com>") {
		t.Errorf("Message-ID = %q", id)
	}
	got, _ := io.ReadAll(msg.Body)
	if want := strings.ReplaceAll(body, "\n", "\r\n"); string(got) != want {
		t.Errorf("body = %q, want %q", got, want)
	}
}

func TestSMTPSendNonASCII(t *testing.T) {
	f := startFakeSMTP(t, nil)
	m := Message{To: "bob@example.org", Subject: "Vérifiez", Body: "Bonjour é\nlien"}
	if err := openFake(t, f, "").Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	_, _, _, data := f.received()
	msg, err := netmail.ReadMessage(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var dec mime.WordDecoder
	if s, err := dec.DecodeHeader(msg.Header.Get("Subject")); err != nil || s != m.Subject {
		t.Errorf("Subject = %q, %v", s, err)
	}
	got, _ := io.ReadAll(quotedprintable.NewReader(msg.Body))
	if string(got) != "Bonjour é\r\nlien\r\n" {
		t.Errorf("body = %q", got)
	}
}

func TestSMTPAuth(t *testing.T) {
	f := startFakeSMTP(t, func(f *fakeSMTP) { f.auth = true })
	m := Message{To: "a@example.org", Subject: "s", Body: "b"}
	if err := openFake(t, f, "user:p%40ss@").Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if _, _, creds, _ := f.received(); creds != "\x00user\x00p@ss" {
		t.Errorf("AUTH PLAIN = %q", creds)
	}
}

func TestSMTPRecipientRejected(t *testing.T) {
	f := startFakeSMTP(t, func(f *fakeSMTP) { f.rcptErr = true })
	m := Message{To: "nobody@example.org", Subject: "s", Body: "b"}
	err := openFake(t, f, "").Send(context.Background(), m)
	if err == nil || !strings.Contains(err.Error(), "550") {
		t.Fatalf("Send = %v, want 550 error", err)
	}
}

func TestSMTPContextCanceled(t *testing.T) {
	f := startFakeSMTP(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := openFake(t, f, "").Send(ctx, Message{To: "a@example.org"}); err == nil {
		t.Fatal("Send with canceled context: want error")
	}
}

func TestHeaderInjection(t *testing.T) {
	f := startFakeSMTP(t, nil)
	logS, _ := Open("", "", slog.New(slog.DiscardHandler))
	for name, s := range map[string]Sender{"smtp": openFake(t, f, ""), "log": logS} {
		for _, m := range []Message{
			{To: "a@example.org\r\nBcc: victim@example.org", Subject: "s"},
			{To: "a@example.org", Subject: "s\nBcc: victim@example.org"},
		} {
			if err := s.Send(context.Background(), m); !errors.Is(err, ErrHeaderInjection) {
				t.Errorf("%s: Send(%q) = %v, want ErrHeaderInjection", name, m, err)
			}
		}
	}
	if _, rcpt, _, _ := f.received(); rcpt != "" {
		t.Errorf("server received RCPT %q", rcpt)
	}
}
