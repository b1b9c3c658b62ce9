// Package mcp is Flagship's MCP endpoint: AI agents play the event through
// tools, resources and a prompt that call the same use cases as the public
// API (internal/platform), authenticated by the same API keys. It is served
// over Streamable HTTP in stateless mode, so any replica answers any
// request and no session lives on one server.
package mcp

import (
	"context"
	"log/slog"
	"mime"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/httpx"
	"github.com/flagshipctf/flagship/internal/platform"
)

// Version is what the endpoint tells clients it is.
const Version = "1.0.0"

// Handler serves /mcp.
type Handler struct {
	svc *platform.Service
	log *slog.Logger
	mcp http.Handler
}

// New returns the MCP endpoint of svc.
func New(svc *platform.Service, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{svc: svc, log: log}
	server := sdk.NewServer(&sdk.Implementation{Name: "flagship", Title: "Flagship CTF", Version: Version},
		&sdk.ServerOptions{Instructions: instructions, Logger: log,
			// What the server does, and no more: it sends no notification
			// (stateless, answers as JSON, no GET stream), so it advertises
			// neither listChanged nor logging.
			Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Resources: &sdk.ResourceCapabilities{},
				Prompts: &sdk.PromptCapabilities{}}})
	h.addTools(server)
	h.addResources(server)
	h.addPrompts(server)
	server.AddReceivingMiddleware(h.listedResources, checkedArgs)
	h.mcp = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{
		// Stateless: each request stands alone, so replicas need no sticky
		// sessions and a restart loses nothing.
		Stateless:    true,
		JSONResponse: true,
		// Every request carries an API key, which a DNS-rebinding page
		// cannot read or forge, and behind a reverse proxy on the same
		// machine the Host is the public name: the SDK's localhost guard
		// would refuse every proxied request.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        maxBody,
		Logger:                     log,
	})
	return h
}

// maxBody bounds a request: a tool call is a few hundred bytes.
const maxBody = 64 << 10

// instructions is what a client may put in front of its model.
const instructions = `Flagship is a CTF (capture the flag) platform. Solve security challenges and submit their flags.
Start with list_challenges, read one with get_challenge (its description is Markdown; a file, if any, is linked and
also readable as a resource), then submit_flag. submit_flag always answers with an outcome: correct, wrong,
already_solved, locked, rate_limited (wait retryAfterSeconds) or not_found. A challenge whose instance is perPlayer
runs your own service: start it with start_instance and connect to the line it answers. A challenge may have hints:
list_hints shows them with their cost, and unlock_hint reveals one at the cost of points from your solve of that
challenge (nothing once solved). The event_rules prompt explains the rules.`

type viewerKey struct{}

// viewer returns the caller that ServeHTTP authenticated.
func viewer(ctx context.Context) ctf.Viewer {
	v, _ := ctx.Value(viewerKey{}).(ctf.Viewer)
	return v
}

// ServeHTTP authenticates the API key before any MCP message is read: a
// missing, unknown or revoked key is 401, with the same sentences as the
// API's.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if mcpCORS.Handle(w, r) {
		return
	}
	key, present, err := httpx.PresentedKey(r)
	if err == nil && !present {
		err = errNoKey
	}
	var v ctf.Viewer
	if err == nil {
		v, err = h.svc.Accounts.AuthenticateKey(r.Context(), key)
	}
	if err != nil {
		// As the API answers: 401 for a bad key, 503 when the platform
		// cannot tell.
		httpx.Fail(w, r, h.log, err)
		return
	}
	if !negotiate(w, r) {
		return
	}
	v.Door = ctf.DoorMCP
	h.mcp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, v)))
}

// negotiate answers, as JSON, what the SDK would refuse in plain text:
// another method than POST (the endpoint is stateless: no GET stream of
// server-sent messages, no session to DELETE), a body that is not JSON, an
// Accept without JSON. A client that accepts JSON alone is served: every
// answer is JSON (StreamableHTTPOptions.JSONResponse), but the SDK checks
// for both media types of the Streamable HTTP transport, so the header is
// completed for it.
func negotiate(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", "POST")
		httpx.WriteError(w, http.StatusMethodNotAllowed, "/mcp answers POST only: it is stateless, with no stream of "+
			"server-sent messages to GET and no session to DELETE")
		return false
	case !isJSON(r.Header.Get("Content-Type")):
		httpx.WriteError(w, http.StatusUnsupportedMediaType, "send the JSON-RPC message with Content-Type: application/json")
		return false
	}
	accept := r.Header.Values("Accept")
	if len(accept) > 0 && !acceptsJSON(accept) {
		httpx.WriteError(w, http.StatusNotAcceptable, "every answer of /mcp is JSON: send Accept: application/json "+
			"(or application/json, text/event-stream)")
		return false
	}
	r.Header.Set("Accept", "application/json, text/event-stream")
	return true
}

// isJSON reports whether a Content-Type is JSON's, parameters aside.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// acceptsJSON reports whether Accept values take application/json.
func acceptsJSON(values []string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "application/json", "application/*", "*/*":
				return true
			}
		}
	}
	return false
}

// mcpCORS lets browser-based clients (the MCP Inspector) call from any
// origin: they send keys in headers, never cookies.
var mcpCORS = httpx.CORS{
	Expose:  "Mcp-Session-Id, WWW-Authenticate",
	Methods: "POST, OPTIONS",
	Headers: "Authorization, X-API-Key, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID",
}

var errNoKey = ctf.Errorf(ctf.Unauthorized, "authentication required: send your Flagship API key as Authorization: Bearer KEY or X-API-Key: KEY")
