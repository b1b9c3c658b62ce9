// Package mailtest is a small SMTP server for tests: it speaks enough of
// RFC 5321 for net/smtp (EHLO, STARTTLS, AUTH PLAIN, MAIL, RCPT, DATA,
// RSET, NOOP, QUIT), over plain TCP with STARTTLS offered or over
// implicit TLS, keeps every message it accepts, and can refuse messages
// on demand.
package mailtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"

	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	flagmail "github.com/flagshipctf/flagship/internal/mail"
)

// Message is a message the server accepted.
type Message struct {
	From     string
	To       []string
	Raw      []byte
	TLS      bool   // the conversation was encrypted when DATA ended
	AuthUser string // who logged in ("": nobody)
}

// Server is a running test SMTP server.
type Server struct {
	Addr     string         // host:port
	Roots    *x509.CertPool // trusts the server's certificate
	User     string         // AUTH PLAIN's user ("": no AUTH offered)
	Password string
	ln       net.Listener
	tlsConf  *tls.Config
	implicit bool

	mu      sync.Mutex
	msgs    []Message
	refuse  []string // replies to give to the next DATA ends, in order
	arrived chan struct{}
}

// Options of a test server.
type Options struct {
	Implicit       bool // TLS from the first byte (smtps)
	NoStartTLS     bool // do not offer STARTTLS
	User, Password string
}

// Start starts a server on 127.0.0.1 until the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	cert, roots := selfSigned(t)
	s := &Server{Roots: roots, User: o.User, Password: o.Password, implicit: o.Implicit, arrived: make(chan struct{}, 100),
		tlsConf: &tls.Config{Certificates: []tls.Certificate{cert}}}
	if o.NoStartTLS && !o.Implicit {
		s.tlsConf = nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if o.Implicit {
		ln = tls.NewListener(ln, s.tlsConf)
	}
	s.ln, s.Addr = ln, ln.Addr().String()
	var wg sync.WaitGroup
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.serve(c)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return s
}

// URL is the server's smtp:// or smtps:// URL, with the user if any.
func (s *Server) URL() string {
	scheme := "smtp"
	if s.implicit {
		scheme = "smtps"
	}
	cred := ""
	if s.User != "" {
		cred = s.User + ":" + s.Password + "@"
	}
	return scheme + "://" + cred + s.Addr
}

// Refuse makes the next DATA ends answer with these replies, one each (as
// "451 4.3.0 try later" or "550 5.1.1 no such user").
func (s *Server) Refuse(replies ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = append(s.refuse, replies...)
}

// Messages returns the messages accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Wait waits until n messages were accepted, or fails the test after d.
func (s *Server) Wait(t testing.TB, n int, d time.Duration) []Message {
	t.Helper()
	deadline := time.After(d)
	for {
		if m := s.Messages(); len(m) >= n {
			return m
		}
		select {
		case <-s.arrived:
		case <-deadline:
			t.Fatalf("mailtest: %d messages after %s, want %d", len(s.Messages()), d, n)
		}
	}
}

func (s *Server) serve(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	tp := textproto.NewConn(c)
	_, encrypted := c.(*tls.Conn)
	reply := func(format string, args ...any) bool { return tp.PrintfLine(format, args...) == nil }
	if !reply("220 mailtest ESMTP") {
		return
	}
	var from, authUser string
	var to []string
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			ext := []string{"250-mailtest", "250-8BITMIME"}
			if s.tlsConf != nil && !encrypted {
				ext = append(ext, "250-STARTTLS")
			}
			if s.User != "" {
				ext = append(ext, "250-AUTH PLAIN")
			}
			ext = append(ext, "250 SIZE 1048576")
			for _, l := range ext {
				reply("%s", l)
			}
		case "STARTTLS":
			if s.tlsConf == nil || encrypted {
				reply("502 5.5.1 not offered")
				continue
			}
			reply("220 2.0.0 go ahead")
			tc := tls.Server(c, s.tlsConf)
			if tc.Handshake() != nil {
				return
			}
			c, encrypted = tc, true
			tp = textproto.NewConn(c)
			from, to = "", nil
		case "AUTH":
			mech, resp, _ := strings.Cut(arg, " ")
			if !strings.EqualFold(mech, "PLAIN") || s.User == "" {
				reply("504 5.5.4 unknown mechanism")
				continue
			}
			b, _ := base64.StdEncoding.DecodeString(resp)
			parts := strings.Split(string(b), "\x00")
			if len(parts) != 3 || parts[1] != s.User || parts[2] != s.Password {
				reply("535 5.7.8 bad credentials")
				continue
			}
			authUser = parts[1]
			reply("235 2.7.0 ok")
		case "MAIL":
			if s.User != "" && authUser == "" {
				reply("530 5.7.0 authentication required")
				continue
			}
			from = path(arg, "FROM:")
			reply("250 2.1.0 ok")
		case "RCPT":
			to = append(to, path(arg, "TO:"))
			reply("250 2.1.5 ok")
		case "DATA":
			reply("354 go ahead")
			raw, err := io.ReadAll(tp.DotReader())
			if err != nil {
				return
			}
			s.mu.Lock()
			var refusal string
			if len(s.refuse) > 0 {
				refusal, s.refuse = s.refuse[0], s.refuse[1:]
			} else {
				s.msgs = append(s.msgs, Message{From: from, To: to, Raw: raw, TLS: encrypted, AuthUser: authUser})
			}
			s.mu.Unlock()
			if refusal != "" {
				reply("%s", refusal)
				continue
			}
			select {
			case s.arrived <- struct{}{}:
			default:
			}
			reply("250 2.0.0 queued")
		case "RSET":
			from, to = "", nil
			reply("250 ok")
		case "NOOP":
			reply("250 ok")
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("502 5.5.2 unknown command")
		}
	}
}

// path reads the address of "FROM:<a@b> BODY=8BITMIME" or "TO:<a@b>".
func path(arg, prefix string) string {
	if len(arg) < len(prefix) || !strings.EqualFold(arg[:len(prefix)], prefix) {
		return ""
	}
	addr, _, _ := strings.Cut(strings.TrimSpace(arg[len(prefix):]), " ")
	return strings.Trim(addr, "<>")
}

// Parsed is a message read back: its headers and its parts by type.
type Parsed struct {
	Header mail.Header
	Parts  map[string]string // "text/plain", "text/html": decoded bodies
}

// Parse reads a message's headers and its parts (a single part, or the
// parts of a multipart body), decoding quoted-printable.
func Parse(t testing.TB, raw []byte) Parsed {
	t.Helper()
	m, err := mail.ReadMessage(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatalf("mailtest: read message: %v", err)
	}
	p := Parsed{Header: m.Header, Parts: map[string]string{}}
	mt, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatalf("mailtest: Content-Type: %v", err)
	}
	if !strings.HasPrefix(mt, "multipart/") {
		b, _ := io.ReadAll(m.Body)
		p.Parts[mt] = string(b)
		return p
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		part, err := mr.NextPart() // decodes quoted-printable
		if err == io.EOF {
			return p
		}
		if err != nil {
			t.Fatalf("mailtest: part: %v", err)
		}
		pt, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		b, _ := io.ReadAll(part)
		p.Parts[pt] = string(b)
	}
}

func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mailtest"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// Relay runs serve's mail worker over box (a database's outbox) until the
// test ends, sending to a new test server that asks for STARTTLS and a
// password, as a real relay does; the server is returned to read what
// arrived.
func Relay(t *testing.T, box flagmail.Store) *Server {
	t.Helper()
	srv := Start(t, Options{User: "ctf", Password: "s3cret"})
	c, err := flagmail.ParseURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	c.TLS = &tls.Config{RootCAs: srv.Roots}
	from, err := flagmail.ParseFrom("Flagship <ctf@example.org>")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := flagmail.NewWorker(box, flagmail.NewSender(c, from), flagmail.Options{Tick: 20 * time.Millisecond})
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return srv
}
