package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/demo"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/testtime"
)

// syncBuffer is a bytes.Buffer safe to read while a server writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func noEnv(string) string { return "" }

// run runs the CLI in-process and returns its exit code and output.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, noEnv, IO{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// TestServeDemo runs the real `serve --demo` on port 0, reads the board and
// the demo player's profile with the printed key, then stops it the way
// SIGTERM does and expects a clean exit.
func TestServeDemo(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "demo.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"--db", db, "serve", "--demo", "--addr", "127.0.0.1:0"}, noEnv, IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	}()
	urlRE := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
	keyRE := regexp.MustCompile(`API key:\s+(fsk_\S+)`)
	var base, key string
	for deadline := time.Now().Add(testtime.Scale(10 * time.Second)); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := urlRE.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
			if k := keyRE.FindStringSubmatch(out.String()); k != nil {
				key = k[1]
			}
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited early with %d: %s", code, errb.String())
		default:
		}
	}
	if base == "" || key == "" {
		t.Fatalf("no address or key printed within 10 s:\n%s\n%s", out.String(), errb.String())
	}

	var board struct {
		Leaderboard []struct {
			Username    string `json:"username"`
			TotalPoints int    `json:"totalPoints"`
		} `json:"leaderboard"`
	}
	getJSON(t, base+"/api/public/leaderboard", "", &board)
	// The demo event's expected standings (see internal/demo).
	if len(board.Leaderboard) != 21 || board.Leaderboard[0].Username != "n0ps1ed" || board.Leaderboard[0].TotalPoints != 2500 {
		t.Fatalf("demo leaderboard = %+v", board.Leaderboard)
	}
	var me struct {
		Profile struct {
			Username    string `json:"username"`
			TotalPoints int    `json:"totalPoints"`
		} `json:"profile"`
	}
	getJSON(t, base+"/api/public/me", key, &me)
	if me.Profile.Username != demo.DemoUsername || me.Profile.TotalPoints != 200 {
		t.Fatalf("demo /me = %+v", me.Profile)
	}

	cancel()
	waitServeExit(t, done, &errb)
	if !strings.Contains(errb.String(), "status=200") {
		t.Errorf("no request log line with status in:\n%s", errb.String())
	}
}

func getJSON(t *testing.T, url, key string, v any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func TestUserAndAPIKeyCommands(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "f.db")
	code, out, errOut := run(t, "correct horse battery\n", "--db", db, "--json", "user", "create", "--username", "alice", "--email", "alice@example.com", "--name", "Alice", "--password-stdin")
	if code != 0 {
		t.Fatalf("user create: %d %s", code, errOut)
	}
	var u userJSON
	if err := json.Unmarshal([]byte(out), &u); err != nil || u.Username != "alice" || u.Role != ctf.RolePlayer || u.ID == "" {
		t.Fatalf("user create output %q: %v", out, err)
	}
	if code, _, _ := run(t, "", "user", "create", "--db", db, "--username", "root", "--email", "root@example.com", "--admin"); code != 0 {
		t.Fatal("admin create failed")
	}

	// user create goes through the sign-up rules: what sign-up refuses, it
	// refuses, with the option named.
	for _, tc := range []struct{ name, stdin, want string }{
		{"short password", "short\n", "password"},
		{"password is the username", "Carol123\n", "password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(t, tc.stdin, "--db", db, "user", "create", "--username", "carol123", "--email", "carol@example.com", "--password-stdin")
			if code != 2 || !strings.Contains(errOut, "--"+tc.want) {
				t.Errorf("exit %d (%s), want 2 naming --%s", code, errOut, tc.want)
			}
		})
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"bad email", []string{"user", "create", "--username", "bob", "--email", "Bob <bob@example.com>"}, 2},
		{"duplicate username", []string{"user", "create", "--username", "alice", "--email", "other@example.com"}, 1},
		{"duplicate username, other case", []string{"user", "create", "--username", "ALICE", "--email", "alice3@example.com"}, 1},
		{"duplicate email, other case", []string{"user", "create", "--username", "alice2", "--email", "ALICE@example.com"}, 1},
		{"bad username", []string{"user", "create", "--username", "a b", "--email", "x@example.com"}, 2},
		{"missing email", []string{"user", "create", "--username", "bob"}, 2},
		{"unknown subcommand", []string{"user", "delete"}, 2},
		{"key for unknown user", []string{"apikey", "create", "--user", "nobody", "--name", "k"}, 1},
		{"key without name", []string{"apikey", "create", "--user", "alice"}, 2},
		{"revoke unknown key", []string{"apikey", "revoke", "--user", "alice", "--id", "nope"}, 1},
		{"unknown command", []string{"frobnicate"}, 2},
		{"unknown flag", []string{"migrate", "--frob"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(t, "", append([]string{"--db", db}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (%s)", code, tc.code, errOut)
			}
			if code != 0 && strings.TrimSpace(errOut) == "" {
				t.Error("no error message")
			}
		})
	}

	code, out, _ = run(t, "", "--db", db, "--json", "user", "list")
	var users []userJSON
	if code != 0 || json.Unmarshal([]byte(out), &users) != nil || len(users) != 2 || users[1].Role != ctf.RoleAdmin {
		t.Fatalf("user list: %d %s", code, out)
	}

	code, out, _ = run(t, "", "--db", db, "--json", "apikey", "create", "--user", "alice", "--name", "laptop")
	var k struct{ ID, Name, KeyPrefix, Key string }
	if code != 0 || json.Unmarshal([]byte(out), &k) != nil || !strings.HasPrefix(k.Key, k.KeyPrefix+"_") || k.Name != "laptop" {
		t.Fatalf("apikey create: %d %s", code, out)
	}
	code, out, _ = run(t, "", "--db", db, "--json", "apikey", "list", "--user", "alice")
	if code != 0 || strings.Contains(out, k.Key) || !strings.Contains(out, k.KeyPrefix) {
		t.Fatalf("apikey list must show the prefix and never the secret: %s", out)
	}
	if code, _, e := run(t, "", "--db", db, "apikey", "revoke", "--user", "alice", "--id", k.ID); code != 0 {
		t.Fatalf("revoke: %s", e)
	}
	code, out, _ = run(t, "", "--db", db, "--json", "apikey", "list", "--user", "alice")
	var keys []live.APIKeyView
	if code != 0 || json.Unmarshal([]byte(out), &keys) != nil || len(keys) != 1 || keys[0].RevokedAt == nil {
		t.Fatalf("revoked key not marked: %s", out)
	}
}

// TestLoadDumpRoundTrip: load the demo, dump it, load the dump into an
// empty database, dump again: the two dumps are identical.
func TestLoadDumpRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "demo.yaml")
	if err := os.WriteFile(src, demo.Dataset, 0o600); err != nil {
		t.Fatal(err)
	}
	db1, db2 := "sqlite:"+filepath.Join(dir, "1.db"), "sqlite:"+filepath.Join(dir, "2.db")
	if code, _, e := run(t, "", "--db", db1, "load", src); code != 0 {
		t.Fatalf("load: %s", e)
	}
	code, out, _ := run(t, "", "--db", db1, "--json", "load", src)
	var rep struct{ Created, Updated, Unchanged map[string]int }
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("second load: %d %s", code, out)
	}
	if len(rep.Created) != 0 || len(rep.Updated) != 0 || rep.Unchanged["solves"] != 100 {
		t.Errorf("loading the same file twice must change nothing: %+v", rep)
	}
	for _, format := range []string{"yaml", "json"} {
		args := []string{"--db", db1, "dump"}
		if format == "json" {
			args = []string{"--db", db1, "--json", "dump"}
		}
		code, dump1, e := run(t, "", args...)
		if code != 0 {
			t.Fatalf("dump: %s", e)
		}
		file := filepath.Join(dir, "dump."+format)
		os.WriteFile(file, []byte(dump1), 0o600)
		target := db2 + format
		if code, _, e := run(t, "", "--db", target, "load", file); code != 0 {
			t.Fatalf("load dump: %s", e)
		}
		args[1] = target
		_, dump2, _ := run(t, "", args...)
		if dump1 != dump2 {
			t.Errorf("%s dump of the reloaded database differs", format)
		}
		// A dump holds secrets (2FA secrets, webhook secrets): --out
		// writes it readable by its owner only, replacing a file there
		// whole: a dump holds secrets.
		out := filepath.Join(dir, "out."+format)
		if err := os.WriteFile(out, []byte("an older dump"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, stdout, e := run(t, "", append(args, "--out", out)...); code != 0 || stdout != "" {
			t.Fatalf("dump --out: %d %q %s", code, stdout, e)
		}
		data, err := os.ReadFile(out)
		if fi, serr := os.Stat(out); err != nil || serr != nil || fi.Mode().Perm() != 0o600 || string(data) != dump1 {
			t.Errorf("dump --out %s: mode %v (%v, %v), same as stdout %v; want mode 0600 and the dump", out, fi.Mode().Perm(), err, serr, string(data) == dump1)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".out*")); len(left) > 0 {
			t.Errorf("dump --out left %v behind", left)
		}
	}
}
