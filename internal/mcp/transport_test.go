package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/store"
)

// raw sends one request to /mcp with exactly the headers given.
func raw(t *testing.T, method, url, body string, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestAcceptJSONAlone: a POST that accepts JSON alone (or anything, or
// says nothing) is answered as one that accepts both media types: with
// JSON. What cannot be served is refused with a JSON error that says what
// to send.
func TestAcceptJSONAlone(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{})
	key := s.Key("alice")
	listCall := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_challenges","arguments":{}}}`
	for _, c := range []struct {
		name, method, body, contentType, accept string
		want                                    int
		says                                    string // in the JSON error
	}{
		{"json alone", "POST", listCall, "application/json", "application/json", 200, ""},
		{"json with charset", "POST", listCall, "application/json; charset=utf-8", "application/json;q=0.9", 200, ""},
		{"both", "POST", listCall, "application/json", "application/json, text/event-stream", 200, ""},
		{"anything", "POST", listCall, "application/json", "*/*", 200, ""},
		{"no accept", "POST", listCall, "application/json", "", 200, ""},
		{"initialize, json alone", "POST", initialize, "application/json", "application/json", 200, ""},
		{"event stream alone", "POST", listCall, "application/json", "text/event-stream", 406, "Accept: application/json"},
		{"html", "POST", listCall, "application/json", "text/html", 406, "Accept: application/json"},
		{"form body", "POST", listCall, "application/x-www-form-urlencoded", "application/json", 415, "Content-Type: application/json"},
		{"GET stream", "GET", "", "", "text/event-stream", 405, "POST only"},
		{"DELETE", "DELETE", "", "", "", 405, "POST only"},
	} {
		hd := map[string]string{"Authorization": "Bearer " + key}
		if c.contentType != "" {
			hd["Content-Type"] = c.contentType
		}
		if c.accept != "" {
			hd["Accept"] = c.accept
		}
		status, h, body := raw(t, c.method, s.URL, c.body, hd)
		if status != c.want || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %s %q, want %d JSON", c.name, status, h.Get("Content-Type"), body, c.want)
			continue
		}
		if status == 200 {
			var msg struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal([]byte(body), &msg); err != nil || len(msg.Result) == 0 {
				t.Errorf("%s: not a JSON-RPC result: %q", c.name, body)
			}
			continue
		}
		var e struct{ Error string }
		if json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e.Error, c.says) {
			t.Errorf("%s: error %q, want one saying %q", c.name, body, c.says)
		}
		if status == 405 && h.Get("Allow") != "POST" {
			t.Errorf("%s: Allow %q", c.name, h.Get("Allow"))
		}
	}
	// The key is still checked first.
	if status, _, _ := raw(t, "GET", s.URL, "", nil); status != 401 {
		t.Errorf("GET without a key: %d, want 401", status)
	}
}

// TestCapabilities: the server advertises what it does: tools, resources
// and prompts, without listChanged (it sends no notification: no GET
// stream) and without logging.
func TestCapabilities(t *testing.T) {
	t.Parallel()
	s := start(t, store.RateLimit{})
	cs := connect(t, s.URL, &keyed{header: "Authorization", key: s.Key("alice")})
	caps := cs.InitializeResult().Capabilities
	b, _ := json.Marshal(caps)
	if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil {
		t.Fatalf("capabilities %s: want tools, resources and prompts", b)
	}
	if caps.Tools.ListChanged || caps.Resources.ListChanged || caps.Prompts.ListChanged || caps.Resources.Subscribe ||
		caps.Logging != nil || caps.Completions != nil {
		t.Errorf("capabilities %s advertise what the server does not do", b)
	}
	if _, err := cs.ListPrompts(context.Background(), nil); err != nil {
		t.Errorf("prompts/list: %v", err)
	}
}
