package mail_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/mail"
	"github.com/flagshipctf/flagship/internal/mail/mailtest"
)

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    mail.Config
		wantErr string
	}{
		{in: "smtp://u:p%40ss@mail.example.org:2525", want: mail.Config{Host: "mail.example.org", Port: 2525, User: "u", Password: "p@ss"}},
		{in: "smtp://mail.example.org", want: mail.Config{Host: "mail.example.org", Port: 587}},
		{in: "smtps://u:p@mail.example.org", want: mail.Config{Host: "mail.example.org", Port: 465, Implicit: true, User: "u", Password: "p"}},
		{in: "http://mail.example.org", wantErr: "scheme must be smtp or smtps"},
		{in: "smtp://:25", wantErr: "a host is required"},
		{in: "smtp://mail.example.org:0", wantErr: "port must be 1 to 65535"},
		{in: "smtp://mail.example.org/x", wantErr: "remove the path"},
		{in: "smtp://u:secret@mail example", wantErr: "SMTP URL"},
	} {
		got, err := mail.ParseURL(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseURL(%q) = %v, want an error with %q", tc.in, err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("ParseURL(%q): the error shows the password: %v", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestBuildIsMultipartAlternative(t *testing.T) {
	from, err := mail.ParseFrom("Flagship Éditions <ctf@example.org>")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 120)
	raw, err := mail.Build(from, mail.Message{To: "p@example.net", Subject: "Réinitialiser", Text: "Hello\nlink " + long,
		HTML: "<p>Hello</p>"}, time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\r\n") {
		if len(line) > 998 {
			t.Fatalf("a line of %d bytes", len(line))
		}
	}
	p := mailtest.Parse(t, raw)
	if got := p.Header.Get("Subject"); got != "=?utf-8?q?R=C3=A9initialiser?=" {
		t.Errorf("Subject = %q", got)
	}
	if p.Parts["text/plain"] != "Hello\r\nlink "+long || p.Parts["text/html"] != "<p>Hello</p>" {
		t.Errorf("parts = %q", p.Parts)
	}
	if !strings.HasSuffix(p.Header.Get("Message-ID"), "@example.org>") {
		t.Errorf("Message-ID = %q", p.Header.Get("Message-ID"))
	}
	if _, err := mail.Build(from, mail.Message{To: "p@example.net", Subject: "a\r\nBcc: x@y"}, time.Now()); err == nil {
		t.Error("a subject with a line break was written")
	}
	if _, err := mail.ParseFrom("not an address"); err == nil {
		t.Error("ParseFrom took a non-address")
	}
}

func TestSend(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		o       mailtest.Options
		wantTLS bool
	}{
		{"starttls with auth", mailtest.Options{User: "ctf", Password: "pw"}, true},
		{"implicit tls", mailtest.Options{Implicit: true, User: "ctf", Password: "pw"}, true},
		{"plain, no auth", mailtest.Options{NoStartTLS: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := mailtest.Start(t, tc.o)
			c, err := mail.ParseURL(srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			c.TLS = &tls.Config{RootCAs: srv.Roots}
			from, _ := mail.ParseFrom("Flagship <ctf@example.org>")
			s := mail.NewSender(c, from)
			if err := s.Send(context.Background(), mail.Message{To: "p@example.net", Subject: "Hi", Text: "t", HTML: "<b>h</b>"}, time.Now()); err != nil {
				t.Fatal(err)
			}
			got := srv.Messages()
			if len(got) != 1 || got[0].From != "ctf@example.org" || len(got[0].To) != 1 || got[0].To[0] != "p@example.net" || got[0].TLS != tc.wantTLS ||
				got[0].AuthUser != tc.o.User {
				t.Fatalf("messages = %+v", got)
			}
			if p := mailtest.Parse(t, got[0].Raw); p.Parts["text/html"] != "<b>h</b>" {
				t.Errorf("parts = %q", p.Parts)
			}
		})
	}
}

func TestSendRefusals(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, mailtest.Options{User: "ctf", Password: "pw"})
	c, _ := mail.ParseURL(srv.URL())
	c.TLS = &tls.Config{RootCAs: srv.Roots}
	from, _ := mail.ParseFrom("ctf@example.org")
	msg := mail.Message{To: "p@example.net", Subject: "Hi", Text: "t"}
	srv.Refuse("451 4.3.0 try later", "550 5.1.1 no such user")
	err := mail.NewSender(c, from).Send(context.Background(), msg, time.Now())
	if err == nil || mail.Permanent(err) {
		t.Errorf("a 451: %v (permanent %v)", err, mail.Permanent(err))
	}
	err = mail.NewSender(c, from).Send(context.Background(), msg, time.Now())
	var te *textproto.Error
	if !errors.As(err, &te) || !mail.Permanent(err) {
		t.Errorf("a 550: %v", err)
	}
	c.Password = "wrong"
	if err := mail.NewSender(c, from).Send(context.Background(), msg, time.Now()); err == nil || !strings.Contains(err.Error(), "AUTH") {
		t.Errorf("a wrong password: %v", err)
	}
	// An untrusted certificate is refused, not ignored.
	c.TLS, c.Password = nil, "pw"
	if err := mail.NewSender(c, from).Send(context.Background(), msg, time.Now()); err == nil || !strings.Contains(err.Error(), "STARTTLS") {
		t.Errorf("an untrusted certificate: %v", err)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Errorf("%d messages accepted", n)
	}
}

func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 10 * time.Second, 2: 20 * time.Second, 3: 40 * time.Second, 10: 10 * time.Minute} {
		if got := mail.Backoff(n, 10*time.Second, 10*time.Minute); got != want {
			t.Errorf("Backoff(%d) = %s, want %s", n, got, want)
		}
	}
}
