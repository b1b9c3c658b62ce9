package contract

import (
	"net/http"
	"testing"
)

func TestHealth(t *testing.T) {
	v := newValidator(t)
	runExchanges(t, v, []exchange{
		{name: "ok", method: "GET", path: health, status: 200, body: obj{"ok": true}},
		{name: "ok false on 200", method: "GET", path: health, status: 200, body: obj{"ok": false}, wantErr: "ok"},
		{name: "unhealthy", method: "GET", path: health, status: 503, header: retryAfter("5"), body: obj{"ok": false}},
		{name: "unhealthy without Retry-After", method: "GET", path: health, status: 503, body: obj{"ok": false}, wantErr: "Retry-After"},
		{name: "ok true on 503", method: "GET", path: health, status: 503, header: retryAfter("5"), body: obj{"ok": true}, wantErr: "ok"},
		{name: "ok as string", method: "GET", path: health, status: 200, body: obj{"ok": "true"}, wantErr: "ok"},
		{name: "missing ok", method: "GET", path: health, status: 200, body: obj{}, wantErr: "ok"},
		{name: "extra field", method: "GET", path: health, status: 200, body: obj{"ok": true, "db": "up"}, wantErr: "db"},
		{name: "undeclared 500", method: "GET", path: health, status: 500, body: errBody("boom"), wantErr: "status 500 is not declared"},
		{name: "not modified", method: "GET", path: health, status: 304, header: http.Header{"Etag": {`"abc"`}}},
		{name: "bad api key", method: "GET", path: health, status: 401, body: errBody("invalid API key")},
	})
}
