// Package httpx holds the small HTTP pieces every front door (the public
// API, the web app, MCP, the live stream, the CTFtime feed) shares, so that
// they answer alike: the status of an error, Retry-After, gzip negotiation,
// the session cookie, the presented API key, the JSON error body and CORS.
// Each is a plain function over net/http, in the manner of miniflux's
// internal/http/request and response packages; none holds state.
package httpx
