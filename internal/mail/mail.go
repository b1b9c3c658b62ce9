// Package mail sends email through an SMTP server with the standard
// library's net/smtp: the server's URL (smtp:// with STARTTLS when the
// server offers it, smtps:// with implicit TLS), messages written as
// multipart/alternative (plain text and HTML), and the worker that sends
// the database's outbox (worker.go).
package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is an SMTP server to send through.
type Config struct {
	Host     string
	Port     int
	Implicit bool // smtps://: TLS from the first byte, else STARTTLS when offered
	User     string
	Password string
	// TLS is the TLS configuration (nil: the system's roots, the host's
	// name). Tests give their own roots.
	TLS *tls.Config
}

// ParseURL reads smtp://USER:PASS@HOST:PORT (port 587 by default) or
// smtps://USER:PASS@HOST:PORT (port 465 by default); the user and password
// are optional and percent-decoded.
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return Config{}, fmt.Errorf("SMTP URL: %w", redactURL(err))
	}
	var c Config
	switch u.Scheme {
	case "smtp":
		c.Port = 587
	case "smtps":
		c.Port, c.Implicit = 465, true
	default:
		return Config{}, fmt.Errorf("SMTP URL: the scheme must be smtp or smtps, not %q", u.Scheme)
	}
	c.Host = u.Hostname()
	if c.Host == "" {
		return Config{}, errors.New("SMTP URL: a host is required, as in smtp://user:pass@mail.example.org:587")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Config{}, fmt.Errorf("SMTP URL: the port must be 1 to 65535, not %q", p)
		}
		c.Port = n
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return Config{}, errors.New("SMTP URL: only smtp(s)://USER:PASS@HOST:PORT is read; remove the path, query or fragment")
	}
	if u.User != nil {
		c.User = u.User.Username()
		c.Password, _ = u.User.Password()
	}
	return c, nil
}

// redactURL drops the URL (and its password) from a parse error.
func redactURL(err error) error {
	var u *url.Error
	if errors.As(err, &u) {
		return u.Err
	}
	return err
}

// Addr is the server's host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// ParseFrom reads a sender such as `Flagship <ctf@example.org>` or a bare
// address.
func ParseFrom(s string) (*mail.Address, error) {
	a, err := mail.ParseAddress(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("mail sender %q: %w (write it as \"Flagship <ctf@example.org>\")", s, err)
	}
	return a, nil
}

// Message is one email to one recipient.
type Message struct {
	To      string // a bare address
	Subject string
	Text    string // the plain text part
	HTML    string // the HTML part ("": text only)
}

// Build writes m as a MIME message from from, dated now, with a fresh
// Message-ID under the sender's domain.
func Build(from *mail.Address, m Message, now time.Time) ([]byte, error) {
	to, err := mail.ParseAddress(m.To)
	if err != nil {
		return nil, fmt.Errorf("recipient %q: %w", m.To, err)
	}
	if strings.ContainsAny(m.Subject, "\r\n") {
		return nil, errors.New("a subject is one line")
	}
	domain := "flagship.invalid"
	if at := strings.LastIndexByte(from.Address, '@'); at >= 0 {
		domain = from.Address[at+1:]
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	var b bytes.Buffer
	h := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	h("From", from.String())
	h("To", to.String())
	h("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	h("Date", now.Format(time.RFC1123Z))
	h("Message-ID", "<"+hex.EncodeToString(id)+"@"+domain+">")
	h("MIME-Version", "1.0")
	h("Auto-Submitted", "auto-generated")
	if m.HTML == "" {
		h("Content-Type", "text/plain; charset=utf-8")
		h("Content-Transfer-Encoding", "quoted-printable")
		b.WriteString("\r\n")
		if err := writeQP(&b, m.Text); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	mw := multipart.NewWriter(&b)
	h("Content-Type", "multipart/alternative; boundary="+mw.Boundary())
	b.WriteString("\r\n")
	// Plain text first: a reader shows the last part it understands.
	for _, p := range []struct{ kind, body string }{{"text/plain", m.Text}, {"text/html", m.HTML}} {
		w, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {p.kind + "; charset=utf-8"},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		if err != nil {
			return nil, err
		}
		if err := writeQP(w, p.body); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeQP(w interface{ Write([]byte) (int, error) }, s string) error {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
	qp := quotedprintable.NewWriter(w)
	if _, err := qp.Write([]byte(s)); err != nil {
		return err
	}
	return qp.Close()
}

// Sender sends messages through one SMTP server.
type Sender struct {
	c       Config
	from    *mail.Address
	Timeout time.Duration // bounds one message's conversation (30 s)
}

// NewSender returns a sender through c, from from.
func NewSender(c Config, from *mail.Address) *Sender {
	return &Sender{c: c, from: from, Timeout: 30 * time.Second}
}

// From is the sender's address.
func (s *Sender) From() *mail.Address { return s.from }

// Send delivers m: a connection, TLS (implicit, or STARTTLS when the
// server offers it), AUTH PLAIN when a user is configured (net/smtp
// refuses it over a connection without TLS, except to localhost), one
// message, QUIT.
func (s *Sender) Send(ctx context.Context, m Message, now time.Time) error {
	raw, err := Build(s.from, m, now)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	tc := s.tlsConfig()
	d := &net.Dialer{}
	var conn net.Conn
	if s.c.Implicit {
		conn, err = (&tls.Dialer{NetDialer: d, Config: tc}).DialContext(ctx, "tcp", s.c.Addr())
	} else {
		conn, err = d.DialContext(ctx, "tcp", s.c.Addr())
	}
	if err != nil {
		return fmt.Errorf("connect to the SMTP server %s: %w", s.c.Addr(), err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	cl, err := smtp.NewClient(conn, s.c.Host)
	if err != nil {
		return fmt.Errorf("SMTP greeting: %w", err)
	}
	defer cl.Close()
	if !s.c.Implicit {
		if ok, _ := cl.Extension("STARTTLS"); ok {
			if err := cl.StartTLS(tc); err != nil {
				return fmt.Errorf("SMTP STARTTLS: %w", err)
			}
		}
	}
	if s.c.User != "" {
		if err := cl.Auth(smtp.PlainAuth("", s.c.User, s.c.Password, s.c.Host)); err != nil {
			return fmt.Errorf("SMTP AUTH: %w", err)
		}
	}
	if err := cl.Mail(s.from.Address); err != nil {
		return fmt.Errorf("SMTP MAIL FROM: %w", err)
	}
	if err := cl.Rcpt(m.To); err != nil {
		return fmt.Errorf("SMTP RCPT TO: %w", err)
	}
	w, err := cl.Data()
	if err != nil {
		return fmt.Errorf("SMTP DATA: %w", err)
	}
	if _, err := w.Write(raw); err != nil {
		return fmt.Errorf("SMTP DATA: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("SMTP DATA: %w", err)
	}
	// The message is accepted once DATA ends well: a failed QUIT loses
	// nothing.
	_ = cl.Quit()
	return nil
}

func (s *Sender) tlsConfig() *tls.Config {
	if s.c.TLS != nil {
		c := s.c.TLS.Clone()
		if c.ServerName == "" {
			c.ServerName = s.c.Host
		}
		return c
	}
	return &tls.Config{ServerName: s.c.Host, MinVersion: tls.VersionTLS12}
}

// Permanent reports whether err is the server refusing the message for
// good (a 5xx reply): trying again would get the same answer.
func Permanent(err error) bool {
	var te *textproto.Error
	return errors.As(err, &te) && te.Code >= 500 && te.Code <= 599
}
