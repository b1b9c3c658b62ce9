package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

// post sends one raw JSON-RPC message to /mcp.
func post(t *testing.T, url, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Add(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestKeysAreCheckedBeforeAnyMessage: a missing, malformed, unknown or
// revoked key is 401 with a JSON error before the MCP message is read; both
// headers carry a good key.
func TestKeysAreCheckedBeforeAnyMessage(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{})
	key := s.Key("alice")
	revoked := s.Key("alice")
	me, err := s.Svc.Accounts.Me(context.Background(), mustAuth(t, s.Svc, revoked))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Svc.Keys.Revoke(context.Background(), ctf.Operator, me.ID, me.McpAPIKeys[1].ID); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		headers []string
		want    int
	}{
		{"no key", nil, 401},
		{"basic credentials only", []string{"Authorization: Basic YWxpY2U6cHc="}, 401},
		{"malformed", []string{"Authorization: Bearer nope"}, 401},
		{"unknown", []string{"X-API-Key: " + key[:len(key)-4] + "AAAA"}, 401},
		{"revoked", []string{"Authorization: Bearer " + revoked}, 401},
		{"two different keys", []string{"Authorization: Bearer " + key, "X-API-Key: " + revoked}, 401},
		{"bearer", []string{"Authorization: Bearer " + key}, 200},
		{"x-api-key", []string{"X-API-Key: " + key}, 200},
	} {
		status, h, body := post(t, s.URL, initialize, c.headers...)
		if status != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, status, body, c.want)
			continue
		}
		if status == 401 {
			var e struct{ Error string }
			if json.Unmarshal([]byte(body), &e) != nil || e.Error == "" || !strings.HasPrefix(h.Get("Content-Type"), "application/json") ||
				h.Get("WWW-Authenticate") == "" {
				t.Errorf("%s: 401 body %q, headers %v", c.name, body, h)
			}
		} else if !strings.Contains(body, `"serverInfo"`) {
			t.Errorf("%s: %s", c.name, body)
		}
	}
	// A key revoked while a client is connected stops working at once.
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: key})
	if res := call(t, cs, "my_profile", nil, nil); res.IsError {
		t.Fatal(text(res))
	}
	if _, err := s.Svc.Keys.Revoke(context.Background(), ctf.Operator, me.ID, me.McpAPIKeys[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(context.Background(), toolParams("my_profile", nil)); err == nil {
		t.Error("a revoked key still calls tools")
	}
}

// TestLastUsedAt: a key used over MCP shows when, as over the API.
func TestLastUsedAt(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{})
	key := s.Key("bob")
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: key})
	call(t, cs, "list_challenges", nil, nil)
	s.Svc.FlushTouches(context.Background())
	s.Reload() // what the database holds, not just this process's memory
	me, err := s.Svc.Accounts.Me(context.Background(), mustAuth(t, s.Svc, key))
	if err != nil {
		t.Fatal(err)
	}
	if k := me.McpAPIKeys[0]; k.LastUsedAt == nil {
		t.Errorf("lastUsedAt not set after an MCP call: %+v", k)
	} else if at, _ := time.Parse(time.RFC3339, *k.LastUsedAt); time.Since(at) > time.Minute {
		t.Errorf("lastUsedAt %s", *k.LastUsedAt)
	}
}

func mustAuth(t *testing.T, svc *platform.Service, key string) ctf.Viewer {
	t.Helper()
	v, err := svc.Accounts.AuthenticateKey(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
