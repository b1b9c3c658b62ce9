// Package apitest runs the real HTTP stack (a fresh database on the backend
// storetest chooses, hot state, API handler) for tests, and checks every
// response against the served OpenAPI document. It is imported only by
// tests.
package apitest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/clientaddr"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/metrics"
	"github.com/flagshipctf/flagship/internal/openapi/contract"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/server"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// Options tune a test server.
type Options struct {
	RateLimit store.RateLimit // zero: the default 10 per minute
	Now       func() time.Time
	// Metrics observes the service and the requests (Server.Metrics).
	Metrics bool
	// CTFtimeOff serves /api/ctftime as turned off.
	CTFtimeOff bool
	// TrustedProxies is serve's --trusted-proxies.
	TrustedProxies string
	// SecureCookies serves as behind TLS (an https public URL), over
	// plain HTTP still.
	SecureCookies bool
	// SignupLimit is serve's --signup-limit: 0 for its default, 10;
	// negative for none.
	SignupLimit int
	// WebhooksAllowPrivate accepts webhooks to local targets (serve
	// --webhooks-allow-private).
	WebhooksAllowPrivate bool
	// PublicURL is serve's --public-url, which links (to files, in
	// webhooks) start with; by default the test server's own URL, whose
	// port changes with every run.
	PublicURL string
	// Mail is serve's --smtp-url being set: password resets by email are
	// offered (the test sends the outbox itself, with package mail).
	Mail bool
	// RequireEmailVerification is serve's --require-email-verification.
	RequireEmailVerification bool
	// Instances runs players' instances on an engine (InstanceEngines
	// gives the tests' ones); zero: the server runs none.
	Instances platform.InstanceOptions
}

// Server is a running test instance.
type Server struct {
	T         testing.TB
	URL       string
	DB        *store.DB
	DSN       string // the database's DSN, for store.Open
	DBPath    string // the SQLite file; "" on PostgreSQL
	FilesDir  string // the service's cache of challenge files
	Svc       *platform.Service
	Validator *contract.Validator
	HTTP      *httptest.Server
	Metrics   *metrics.Metrics // with Options.Metrics
	now       func() time.Time // the clock Options gave, shared by replicas
	clients   clientaddr.Resolver
	secure    bool // Options.SecureCookies, kept by replicas
	signups   int
	front     *server.Server
}

// Start loads datasetYAML (may be empty; the files it names are inside
// the calling package's testdata directory) into a fresh database (see
// storetest) through the same loader as `flagship load`, and serves the API
// over real HTTP.
func Start(t testing.TB, datasetYAML string, opts ...Options) *Server {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.RateLimit == (store.RateLimit{}) {
		o.RateLimit = store.RateLimit{Max: 10, Window: time.Minute}
	}
	switch {
	case o.SignupLimit == 0:
		o.SignupLimit = 10
	case o.SignupLimit < 0:
		o.SignupLimit = 0
	}
	ctx := context.Background()
	dsn := storetest.DSN(t)
	db := storetest.OpenDSN(t, dsn)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(datasetYAML) != "" {
		// As if the dataset sat in the test package's testdata directory:
		// the files it names must be inside the dataset's directory.
		file, err := filepath.Abs(filepath.Join("testdata", "event.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		ds, err := dataset.Decode([]byte(datasetYAML), file)
		if err != nil {
			t.Fatalf("decode test dataset: %v", err)
		}
		if _, err := transfer.Load(ctx, db, ds); err != nil {
			t.Fatalf("load test dataset: %v", err)
		}
	}
	v, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{T: t, DB: db, DSN: dsn, DBPath: SQLitePath(dsn), Validator: v, now: o.Now, signups: o.SignupLimit}
	s.HTTP = httptest.NewServer(nil)
	s.URL = s.HTTP.URL
	log := slog.New(slog.DiscardHandler)
	s.FilesDir = t.TempDir()
	// Untyped nils unless asked: a nil *Metrics in an interface would be
	// called.
	var obs platform.Observer
	var reqs server.RequestObserver
	if o.Metrics {
		s.Metrics = metrics.New(db)
		obs, reqs = s.Metrics, s.Metrics
	}
	publicURL := s.URL
	if o.PublicURL != "" {
		publicURL = o.PublicURL
	}
	s.Svc = platform.New(db, platform.Options{PublicURL: publicURL, RateLimit: o.RateLimit, Logger: log, Now: o.Now, FilesDir: s.FilesDir,
		Observer: obs, SignupLimit: o.SignupLimit, WebhooksAllowPrivate: o.WebhooksAllowPrivate, Instances: o.Instances, Mail: o.Mail,
		RequireEmailVerification: o.RequireEmailVerification})
	if err := s.Svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	clients, err := clientaddr.Parse(o.TrustedProxies)
	if err != nil {
		t.Fatal(err)
	}
	s.clients, s.secure = clients, o.SecureCookies
	s.front = server.New(s.Svc, server.Options{Log: log, Requests: reqs, CTFtimeOff: o.CTFtimeOff, Clients: clients,
		SecureCookies: o.SecureCookies})
	s.HTTP.Config.Handler = s.front.Handler()
	t.Cleanup(s.HTTP.Close)
	return s
}

// SQLitePath returns the file of a SQLite DSN, "" for another database.
func SQLitePath(dsn string) string {
	if p, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		return p
	}
	return ""
}

// Key mints an API key for username and returns the secret. A banned
// user (or an agent of one) mints no keys, so theirs is written to the
// database directly, as a key minted before the ban would be.
func (s *Server) Key(username string) string {
	s.T.Helper()
	ctx := context.Background()
	u, err := s.DB.Accounts().UserByUsername(ctx, username)
	if err != nil {
		s.T.Fatal(err)
	}
	_, key, err := s.Svc.Keys.Create(ctx, ctf.Operator, platform.NewAPIKey{Owner: u.ID, Name: "test"})
	if ctf.ErrorCode(err) == ctf.Forbidden {
		var prefix, hash string
		key, prefix, hash = secret.NewAPIKey()
		_, err = s.DB.Accounts().CreateAPIKey(ctx, ctf.APIKey{ID: ctf.NewID(), UserID: u.ID, Name: "test", Prefix: prefix, Hash: hash,
			CreatedAt: ctf.Millis(time.Now())}, nil)
		if err == nil {
			s.Sync()
		}
	}
	if err != nil {
		s.T.Fatal(err)
	}
	return key
}

// ReadOnlyKey mints a read-only API key for username and returns the
// secret.
func (s *Server) ReadOnlyKey(username string) string {
	s.T.Helper()
	ctx := context.Background()
	u, err := s.DB.Accounts().UserByUsername(ctx, username)
	if err != nil {
		s.T.Fatal(err)
	}
	_, key, err := s.Svc.Keys.Create(ctx, ctf.Operator, platform.NewAPIKey{Owner: u.ID, Name: "read-only", ReadOnly: true})
	if err != nil {
		s.T.Fatal(err)
	}
	return key
}

// Sync applies what was written to the database behind the service's back
// (a test's store calls, another process), as a running server's watcher
// does within a quarter second.
func (s *Server) Sync() {
	s.T.Helper()
	if err := s.Svc.Refresh(context.Background()); err != nil {
		s.T.Fatal(err)
	}
}

// Reload rebuilds the hot state from the database, as a running server does
// within a second of an operator change.
func (s *Server) Reload() {
	s.T.Helper()
	if err := s.Svc.Load(context.Background()); err != nil {
		s.T.Fatal(err)
	}
}

// Response is a finished exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends a request and validates the response against the OpenAPI
// document, failing the test on any drift. headers are "Name: value" pairs.
func (s *Server) Do(method, path string, body []byte, headers ...string) Response {
	s.T.Helper()
	r := s.DoRaw(method, path, body, headers...)
	req, _ := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if err := s.Validator.ValidateResponse(req, r.Status, r.Header, r.Body); err != nil {
		s.T.Errorf("%s %s: response does not match the OpenAPI document: %v\nbody: %s", method, path, err, truncate(r.Body))
	}
	return r
}

// DoRaw sends a request without validating the response.
func (s *Server) DoRaw(method, path string, body []byte, headers ...string) Response {
	s.T.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		s.T.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.T.Fatal(err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Bearer returns the Authorization header for key.
func Bearer(key string) string { return "Authorization: Bearer " + key }

func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// Replica serves a second service over s's database, with s's rate limit,
// clock, trusted proxies and sign-up limit, as a second stateless replica
// of the event would. Its watcher does not run: call its Sync to apply
// what the other replica wrote.
func (s *Server) Replica(limit store.RateLimit) *Server {
	s.T.Helper()
	log := slog.New(slog.DiscardHandler)
	svc := platform.New(s.DB, platform.Options{PublicURL: s.URL, RateLimit: limit, Logger: log, FilesDir: s.T.TempDir(), Now: s.now,
		SignupLimit: s.signups})
	if err := svc.Load(context.Background()); err != nil {
		s.T.Fatal(err)
	}
	hs, front := Serve(s.T, svc, server.Options{Log: log, Clients: s.clients, SecureCookies: s.secure})
	r := *s
	r.URL, r.Svc, r.HTTP, r.front = hs.URL, svc, hs, front
	return &r
}

// Serve serves svc's front doors on a test listener, closed when the test
// ends.
func Serve(t testing.TB, svc *platform.Service, opts server.Options) (*httptest.Server, *server.Server) {
	front := server.New(svc, opts)
	hs := httptest.NewServer(front.Handler())
	t.Cleanup(hs.Close)
	return hs, front
}

// WaitLeaderboard waits until the leaderboard's scheduled build has caught
// up with every change the service applied (a read does not need it: it
// builds what it finds stale).
func (s *Server) WaitLeaderboard() {
	s.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.front.API().WaitLeaderboard(ctx); err != nil {
		s.T.Fatalf("the leaderboard did not catch up: %v", err)
	}
}
