package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/clientaddr"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/demo"
	"github.com/flagshipctf/flagship/internal/events"
	"github.com/flagshipctf/flagship/internal/mail"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/server"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/webhook"
)

func (a *app) serve(ctx context.Context, args []string) error {
	fs := a.flags("serve", "serve [--addr HOST:PORT] [--public-url URL] [--demo] [--metrics-addr HOST:PORT] [--trusted-proxies CIDR,…] [--signup-limit N] [--max-streams N] [--webhooks-allow-private] [--smtp-url smtp(s)://USER:PASS@HOST:PORT] [--mail-from ADDRESS] [--require-email-verification] [--ctftime=false] [--access-log=false] [--instances off|docker|swarm] [--instance-host NAME] [--instance-ports FROM-TO] [--instances-per-player N] [--instances-max N]")
	addr := fs.String("addr", envOr(a.env, "FLAGSHIP_ADDR", "127.0.0.1:8080"), "listen address (env FLAGSHIP_ADDR)")
	publicURL := fs.String("public-url", a.env("FLAGSHIP_PUBLIC_URL"), "public base URL, for file links (env FLAGSHIP_PUBLIC_URL; default http://ADDR)")
	withDemo := fs.Bool("demo", false, "load the built-in demo event into an empty database and print a demo API key")
	rate := fs.Int("rate-limit", envInt(a.env, "FLAGSHIP_RATE_LIMIT", 10), "wrong submissions allowed per user and challenge per window; 0 disables (env FLAGSHIP_RATE_LIMIT)")
	window := fs.Duration("rate-window", envDuration(a.env, "FLAGSHIP_RATE_WINDOW", time.Minute), "rate-limit window (env FLAGSHIP_RATE_WINDOW)")
	cacheDir := fs.String("cache-dir", envOr(a.env, "FLAGSHIP_CACHE_DIR", defaultCacheDir()), "where challenge files are cached on disk, by SHA-256 (env FLAGSHIP_CACHE_DIR)")
	registration := fs.String("registration", envOr(a.env, "FLAGSHIP_REGISTRATION", "open"), "open: anyone may sign up; closed: only admins and the CLI create accounts (env FLAGSHIP_REGISTRATION)")
	metricsAddr := fs.String("metrics-addr", a.env("FLAGSHIP_METRICS_ADDR"), "serve Prometheus metrics at http://HOST:PORT/metrics; off when empty (env FLAGSHIP_METRICS_ADDR)")
	signupLimit := fs.Int("signup-limit", envInt(a.env, "FLAGSHIP_SIGNUP_LIMIT", 10), "accounts one client address may open by signing up per hour; 0 disables (env FLAGSHIP_SIGNUP_LIMIT)")
	trusted := fs.String("trusted-proxies", a.env("FLAGSHIP_TRUSTED_PROXIES"), "reverse proxies whose X-Forwarded-For names the client, CIDR[,CIDR…]; none when empty (env FLAGSHIP_TRUSTED_PROXIES)")
	maxStreams := fs.Int("max-streams", envInt(a.env, "FLAGSHIP_MAX_STREAMS", events.DefaultMaxStreams), "live streams (/api/events) this server holds open at once; past it 429 (env FLAGSHIP_MAX_STREAMS)")
	ctftimeOn := fs.Bool("ctftime", envSwitch(a.env, "FLAGSHIP_CTFTIME", true), "serve the CTFtime scoreboard feed at /api/ctftime (env FLAGSHIP_CTFTIME=on|off)")
	accessLog := fs.Bool("access-log", envSwitch(a.env, "FLAGSHIP_ACCESS_LOG", true), "log one line per request (env FLAGSHIP_ACCESS_LOG=on|off)")
	hooksPrivate := fs.Bool("webhooks-allow-private", envSwitch(a.env, "FLAGSHIP_WEBHOOKS_ALLOW_PRIVATE", false),
		"let webhooks reach loopback, private, link-local and metadata addresses (env FLAGSHIP_WEBHOOKS_ALLOW_PRIVATE=on|off)")
	smtpURL := fs.String("smtp-url", a.env("FLAGSHIP_SMTP_URL"), "send email through this SMTP server, smtp://USER:PASS@HOST:PORT (STARTTLS when offered) or smtps://… (implicit TLS); no email when empty (env FLAGSHIP_SMTP_URL)")
	mailFrom := fs.String("mail-from", a.env("FLAGSHIP_MAIL_FROM"), "the sender of email, as \"Flagship <ctf@example.org>\" (env FLAGSHIP_MAIL_FROM; required with --smtp-url)")
	requireVerify := fs.Bool("require-email-verification", envSwitch(a.env, "FLAGSHIP_REQUIRE_EMAIL_VERIFICATION", false),
		"new accounts confirm their email address by a mailed link before they can submit; needs --smtp-url (env FLAGSHIP_REQUIRE_EMAIL_VERIFICATION=on|off)")
	instFlags := a.instanceFlags(fs)
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if *rate < 0 || *window <= 0 {
		return usagef("--rate-limit must be ≥ 0 and --rate-window > 0")
	}
	if *signupLimit < 0 {
		return usagef("--signup-limit must be ≥ 0")
	}
	if *registration != "open" && *registration != "closed" {
		return usagef("--registration must be open or closed, not %q", *registration)
	}
	if *maxStreams < 1 {
		return usagef("--max-streams must be at least 1, not %d", *maxStreams)
	}
	sender, err := mailSender(*smtpURL, *mailFrom)
	if err != nil {
		return err
	}
	if *requireVerify && sender == nil {
		return usagef("--require-email-verification needs --smtp-url: the links go by email")
	}
	clients, err := clientaddr.Parse(*trusted)
	if err != nil {
		return usagef("--trusted-proxies: %v", err)
	}
	instOpts, err := instFlags.options(*publicURL)
	if err != nil {
		return err
	}
	if instOpts.Engine != nil {
		defer instOpts.Engine.Close()
	}
	// The line per request is written in batches; every other line at once,
	// after the request lines before it. Closed last: no line is lost.
	out := server.NewBatchWriter(a.Stderr)
	defer out.Close()
	log := a.loggerTo(out.Now())
	db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	base := strings.TrimRight(*publicURL, "/")
	if base == "" {
		base = "http://" + displayAddr(ln.Addr())
	}
	obs, reqs, stopMetrics, err := startMetrics(ctx, *metricsAddr, db, log)
	if err != nil {
		ln.Close()
		return err
	}
	defer stopMetrics()
	svc := platform.New(db, platform.Options{PublicURL: base, Logger: log, Observer: obs,
		RateLimit: store.RateLimit{Max: *rate, Window: *window}, RegistrationClosed: *registration == "closed", FilesDir: *cacheDir,
		SignupLimit: *signupLimit, WebhooksAllowPrivate: *hooksPrivate, Instances: instOpts, Mail: sender != nil,
		RequireEmailVerification: *requireVerify})
	if *withDemo {
		if err := importDemo(ctx, svc, db); err != nil {
			ln.Close()
			return err
		}
	}
	start := time.Now()
	if err := svc.Load(ctx); err != nil {
		ln.Close()
		return err
	}
	log.Info("event state built", "duration", time.Since(start))
	reconcileInstances(ctx, svc, instOpts, log)
	var demoKey string
	if *withDemo {
		// A key's secret cannot be shown twice: a fresh one each start.
		if _, demoKey, err = createKey(ctx, svc, demo.DemoUsername, "demo", false); err != nil {
			ln.Close()
			return fmt.Errorf("demo API key (is this the demo database?): %w", err)
		}
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	// Polling is cheap (two indexed reads) and is what keeps several processes
	// on one SQLite file, or replicas that lost their notifications, current:
	// a tenth of a second, so that a solve shows on every replica within a
	// quarter (the poll, then at most api.DefaultLeaderboardInterval until
	// the board's next build).
	go svc.Watch(watchCtx, 100*time.Millisecond)
	go store.Listen(watchCtx, a.db, svc.Wake, log)
	// Every replica sends webhook deliveries; claims keep each to one.
	if *hooksPrivate {
		log.Warn("webhooks may reach private addresses (--webhooks-allow-private): loopback, the private network, cloud metadata")
	}
	go webhook.New(db.Hooks(), webhook.Options{Observer: svc.Observer(), Logger: log, AllowPrivate: *hooksPrivate}).Run(watchCtx)
	// Every replica sends the mail outbox too; claims keep each message
	// to one.
	if sender != nil {
		go mail.NewWorker(db.Mail(), sender, mail.Options{Logger: log}).Run(watchCtx)
	}

	// The request lines are log's, in its format, at info.
	_, jsonLog := log.Handler().(*slog.JSONHandler)
	srv := server.New(svc, server.Options{Log: log, SecureCookies: strings.HasPrefix(base, "https://"), Requests: reqs, CTFtimeOff: !*ctftimeOn,
		Clients: clients, MaxStreams: *maxStreams, AccessLog: server.AccessLog{Out: out, JSON: jsonLog},
		AccessLogOff: !*accessLog || !log.Enabled(ctx, slog.LevelInfo)})
	a.announce(base, demoKey)
	return srv.Serve(ctx, ln)
}

func (a *app) announce(base, demoKey string) {
	if a.json {
		a.print(map[string]any{"listening": base, "demoUser": ifDemo(demoKey, demo.DemoUsername),
			"demoPassword": ifDemo(demoKey, demo.DemoPassword), "demoApiKey": ifDemo(demoKey, demoKey)}, "")
		return
	}
	fmt.Fprintf(a.Stdout, "Flagship is listening on %s\n", base)
	if demoKey != "" {
		fmt.Fprintf(a.Stdout, `
Demo event loaded.
  login:    %s / %s
  API key:  %s

Try it:
  curl %s/api/public/leaderboard
  curl -H 'Authorization: Bearer %s' %s/api/public/me
`, demo.DemoUsername, demo.DemoPassword, demoKey, base, demoKey, base)
	}
}

func ifDemo(key, v string) any {
	if key == "" {
		return nil
	}
	return v
}

// mailSender reads --smtp-url and --mail-from: nil without a URL.
func mailSender(rawURL, from string) (*mail.Sender, error) {
	if strings.TrimSpace(rawURL) == "" {
		if strings.TrimSpace(from) != "" {
			return nil, usagef("--mail-from needs --smtp-url: without a server no email is sent")
		}
		return nil, nil
	}
	c, err := mail.ParseURL(rawURL)
	if err != nil {
		return nil, usagef("--smtp-url: %v", err)
	}
	if strings.TrimSpace(from) == "" {
		return nil, usagef("--smtp-url needs --mail-from, the sender, as \"Flagship <ctf@example.org>\"")
	}
	addr, err := mail.ParseFrom(from)
	if err != nil {
		return nil, usagef("--mail-from: %v", err)
	}
	return mail.NewSender(c, addr), nil
}

// importDemo fills an empty database with the demo event.
func importDemo(ctx context.Context, svc *platform.Service, db *store.DB) error {
	empty, err := db.Empty(ctx)
	if err != nil || !empty {
		return err
	}
	ds, err := dataset.Decode(demo.DatasetAt(time.Now()), "demo.yaml")
	if err != nil {
		return fmt.Errorf("demo dataset: %w", err)
	}
	if _, err := svc.Admin.Import(ctx, ctf.Operator, ds); err != nil {
		return fmt.Errorf("load demo: %w", err)
	}
	return nil
}

// defaultCacheDir is flagship-files in the user's cache directory, or in
// the temporary directory when there is none.
func defaultCacheDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "flagship-files")
	}
	return filepath.Join(os.TempDir(), "flagship-files")
}

func displayAddr(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return addr.String()
	}
	if tcp.IP.IsUnspecified() {
		return net.JoinHostPort("localhost", strconv.Itoa(tcp.Port))
	}
	return tcp.String()
}

func envOr(env Env, key, def string) string {
	if v := env(key); v != "" {
		return v
	}
	return def
}

func envInt(env Env, key string, def int) int {
	if n, err := strconv.Atoi(env(key)); err == nil {
		return n
	}
	return def
}

func envDuration(env Env, key string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(env(key)); err == nil {
		return d
	}
	return def
}
