package mcp_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
)

// TestTypeScriptSDKClient: a client nobody here wrote, on the official
// TypeScript SDK (internal/mcp/tsclient, pinned by its lock file), plays a
// challenge through every tool, resource and prompt of a real server, with
// its key in Authorization and a read-only key in X-API-Key; what it did is
// then checked from the Go side.
func TestTypeScriptSDKClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("the TypeScript SDK client needs node: install Node.js, then run npm ci in internal/mcp/tsclient")
	}
	dir := filepath.Join("tsclient")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("the TypeScript SDK client needs its packages: run npm ci in internal/mcp/tsclient")
	}
	handout, err := os.ReadFile(filepath.Join("testdata", "files", "handout.txt"))
	if err != nil {
		t.Fatal(err)
	}

	// The test event, with a challenge whose file is a zip.
	const member, memberContent = "docs/read me.txt", "inside the zip\n"
	zipped := base64.StdEncoding.EncodeToString(zipOf(t, map[string]string{member: memberContent, "other.bin": "x"}))
	ds := strings.Replace(event, "challenges:\n", "challenges:\n  - {slug: zipped, title: Zipped, categories: [rev], points: 100, "+
		"flags: ['flag{z}'], file: {name: bundle.zip, contentBase64: "+zipped+"}}\n", 1)
	s := apitest.Start(t, ds, apitest.Options{RateLimit: store.RateLimit{Max: 10, Window: time.Minute}})
	ctx := context.Background()
	key := s.Key("alice")
	carol, err := s.DB.Accounts().UserByUsername(ctx, "carol")
	if err != nil {
		t.Fatal(err)
	}
	_, roKey, err := s.Svc.Keys.Create(ctx, ctf.Operator, platform.NewAPIKey{Owner: carol.ID, Name: "ro", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	beforeAttempts, beforeSolves := counts(t, s.Do("GET", "/api/public/challenges/warmup", nil).Body)

	runCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(runCtx, node, "client.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"MCP_URL="+s.URL+"/mcp",
		"MCP_KEY="+key,
		"MCP_RO_KEY="+roKey,
		"MCP_SLUG=warmup",
		"MCP_FLAG=flag{warm}",
		"MCP_FILE_CONTENT="+string(handout),
		"MCP_USER=carol",
		"MCP_DESCRIPTION=Say **hi**: the flag is in the file.",
		"MCP_WRITEUP_AUTHOR=carol",
		"MCP_FLAG_FORMAT=flag{...}",
		"MCP_RATE_LIMIT=10",
		"MCP_HIDDEN_SLUG=draft",
		"MCP_ZIP_SLUG=zipped",
		"MCP_ZIP_MEMBER="+member,
		"MCP_ZIP_CONTENT="+memberContent,
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		t.Fatalf("node client.mjs did not finish in 60 s\nstderr:\n%s\nstdout:\n%s", stderr.String(), stdout.String())
	}
	if err != nil {
		t.Fatalf("node client.mjs: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	var steps []string
	for line := range strings.Lines(stdout.String()) {
		var st struct {
			Step string `json:"step"`
			OK   bool   `json:"ok"`
		}
		if err := json.Unmarshal([]byte(line), &st); err != nil || !st.OK {
			t.Errorf("client output line %q: %v", line, err)
			continue
		}
		steps = append(steps, st.Step)
		t.Logf("tsclient: %s", strings.TrimSpace(line))
	}
	if len(steps) == 0 || steps[len(steps)-1] != "close" {
		t.Fatalf("the client exited 0 without finishing: steps %v\nstderr:\n%s", steps, stderr.String())
	}

	// What the TypeScript client did is recorded: one wrong flag and one
	// solve by alice's key through the MCP door, nothing by the read-only
	// key, and the already_solved and unknown-slug flags count nowhere.
	attempts, solves := counts(t, s.Do("GET", "/api/public/challenges/warmup", nil).Body)
	if attempts != beforeAttempts+2 || solves != beforeSolves+1 {
		t.Errorf("warmup: attemptsCount %d → %d, solvesCount %d → %d; want +2 and +1",
			beforeAttempts, attempts, beforeSolves, solves)
	}
	alice, err := s.DB.Accounts().UserByUsername(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	history, err := s.DB.Play().Submissions(ctx, alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	mcpKey := keyID(t, s, key)
	if len(history) != 2 || history[0].Correct || !history[1].Correct {
		t.Fatalf("alice's submissions %+v, want a wrong flag then a solve", history)
	}
	for i, h := range history {
		if h.Door != ctf.DoorMCP || h.KeyID != mcpKey {
			t.Errorf("submission %d = %+v, want door mcp and key %s", i, h, mcpKey)
		}
	}
	if got, err := s.DB.Play().Submissions(ctx, carol.ID); err != nil || len(got) != 1 {
		t.Errorf("carol's submissions %+v (%v): want only the dataset's solve, none by the read-only key", got, err)
	}
}

// counts reads attemptsCount and solvesCount from a public challenge body.
func counts(t *testing.T, body []byte) (attempts, solves int) {
	t.Helper()
	var b struct {
		Challenge struct {
			AttemptsCount int `json:"attemptsCount"`
			SolvesCount   int `json:"solvesCount"`
		} `json:"challenge"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return b.Challenge.AttemptsCount, b.Challenge.SolvesCount
}

// zipOf is a zip archive of files, by name.
func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, data := range files {
		fw, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(fw, data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
