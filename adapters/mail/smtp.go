package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"net/smtp"
	"strings"
	"time"
)

// defaultTimeout bounds a whole SMTP exchange when ctx has no deadline.
const defaultTimeout = 10 * time.Second

// smtpSender delivers messages to an SMTP server.
type smtpSender struct {
	addr, host string // host:port to dial, and host for TLS and auth
	user, pass string // PLAIN credentials, if user is set
	from       *netmail.Address
	log        *slog.Logger
}

// Send implements Sender.
func (s *smtpSender) Send(ctx context.Context, m Message) error {
	if err := checkHeaders(m); err != nil {
		return err
	}
	to, err := netmail.ParseAddress(m.To)
	if err != nil {
		return fmt.Errorf("mail: to address %q: %w", m.To, err)
	}
	if err := s.send(ctx, to.Address, s.compose(m)); err != nil {
		return fmt.Errorf("mail: send to %s via %s: %w", to.Address, s.addr, err)
	}
	s.log.InfoContext(ctx, "mail sent", "to", to.Address, "subject", m.Subject)
	return nil
}

// send runs one SMTP transaction delivering msg to rcpt.
func (s *smtpSender) send(ctx context.Context, rcpt string, msg []byte) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultTimeout)
		defer cancel()
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return err
	}
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()

	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: s.host}); err != nil {
			return fmt.Errorf("starttls: %w", err)
		}
	}
	if s.user != "" {
		if err := c.Auth(smtp.PlainAuth("", s.user, s.pass, s.host)); err != nil {
			return fmt.Errorf("auth: %w", err)
		}
	}
	if err := c.Mail(s.from.Address); err != nil {
		return err
	}
	if err := c.Rcpt(rcpt); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// compose renders m with its headers, using CRLF line endings.
func (s *smtpSender) compose(m Message) []byte {
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", s.from.String())
	header("To", m.To)
	header("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	header("Date", time.Now().Format(time.RFC1123Z))
	header("Message-ID", s.messageID())
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")

	body := strings.ReplaceAll(m.Body, "\r\n", "\n")
	if isPlain(body) {
		header("Content-Transfer-Encoding", "7bit")
		b.WriteString("\r\n")
		b.WriteString(strings.ReplaceAll(body, "\n", "\r\n"))
	} else {
		header("Content-Transfer-Encoding", "quoted-printable")
		b.WriteString("\r\n")
		qp := quotedprintable.NewWriter(&b) // turns \n into CRLF
		qp.Write([]byte(body))
		qp.Close()
	}
	if !bytes.HasSuffix(b.Bytes(), []byte("\r\n")) {
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

// messageID returns a new unique Message-ID in the sender's domain.
func (s *smtpSender) messageID() string {
	domain := "localhost"
	if i := strings.LastIndexByte(s.from.Address, '@'); i >= 0 {
		domain = s.from.Address[i+1:]
	}
	return "<" + rand.Text() + "@" + domain + ">"
}

// isPlain reports whether body is ASCII with lines short enough to send
// without transfer encoding (RFC 5322 allows 998 characters).
func isPlain(body string) bool {
	for line := range strings.SplitSeq(body, "\n") {
		if len(line) > 998 || strings.ContainsFunc(line, func(r rune) bool { return r >= 0x80 || r == '\r' }) {
			return false
		}
	}
	return true
}
