// Package mail sends outgoing mail, such as the email-verification message
// at signup, through SMTP or, when no server is configured, to the log.
package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	netmail "net/mail"
	"net/url"
	"strings"
)

// Message is one plain-text email.
type Message struct {
	To, Subject, Body string
}

// Sender delivers messages.
type Sender interface {
	// Send delivers m, or returns why it could not.
	Send(ctx context.Context, m Message) error
}

// ErrHeaderInjection is returned for a message whose To or Subject contains
// a carriage return or line feed.
var ErrHeaderInjection = errors.New("mail: CR or LF in header field")

// Open returns a Sender for smtpURL. An empty smtpURL gives a sender that
// only logs messages to log. Otherwise smtpURL must be
// smtp://[user:pass@]host:port; credentials enable PLAIN authentication,
// and STARTTLS is used whenever the server offers it. from is the sender
// address, e.g. "Svc <no-reply@example.com>".
func Open(smtpURL, from string, log *slog.Logger) (Sender, error) {
	if log == nil {
		log = slog.Default()
	}
	if smtpURL == "" {
		return &logSender{log: log}, nil
	}
	u, err := url.Parse(smtpURL)
	if err != nil {
		return nil, fmt.Errorf("mail: parse SMTP URL: %w", err)
	}
	if u.Scheme != "smtp" {
		return nil, fmt.Errorf("mail: SMTP URL scheme %q, want smtp", u.Scheme)
	}
	if u.Hostname() == "" || u.Port() == "" {
		return nil, fmt.Errorf("mail: SMTP URL %q needs host:port", u.Redacted())
	}
	addr, err := netmail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("mail: from address %q: %w", from, err)
	}
	s := &smtpSender{
		addr: net.JoinHostPort(u.Hostname(), u.Port()),
		host: u.Hostname(),
		from: addr,
		log:  log,
	}
	if u.User != nil {
		s.user = u.User.Username()
		s.pass, _ = u.User.Password()
	}
	return s, nil
}

// checkHeaders rejects header injection through m.To or m.Subject.
func checkHeaders(m Message) error {
	if strings.ContainsAny(m.To, "\r\n") || strings.ContainsAny(m.Subject, "\r\n") {
		return ErrHeaderInjection
	}
	return nil
}

// logSender logs messages instead of sending them.
type logSender struct {
	log *slog.Logger
}

// Send implements Sender by writing m to the log.
func (s *logSender) Send(ctx context.Context, m Message) error {
	if err := checkHeaders(m); err != nil {
		return err
	}
	s.log.InfoContext(ctx, "mail not sent (SVC_SMTP_URL unset)",
		"to", m.To, "subject", m.Subject, "body", m.Body)
	return nil
}
