package server_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/server"
)

// TestServeAnswersAsTheHandler: Serve, which hands net/http swept
// connections, answers what the same handler answers on an httptest
// server: reads, a HEAD, a file (sent by sendfile), a submission with its
// body (and Expect: 100-continue), and requests pipelined on one
// connection; then it shuts down cleanly.
func TestServeAnswersAsTheHandler(t *testing.T) {
	t.Parallel()
	s := apitest.StartGolden(t)
	key := apitest.Bearer(s.Key("carol"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- server.New(s.Svc, server.Options{}).Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()

	send := func(url, method, path string, body []byte, headers ...string) apitest.Response {
		req, err := http.NewRequest(method, url+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range headers {
			k, v, _ := strings.Cut(h, ":")
			req.Header.Set(k, strings.TrimSpace(v))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		resp.Header.Del("Date")
		return apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
	}
	for _, c := range []struct {
		method, path string
		body         string
		headers      []string
		status       int
	}{
		{"GET", "/api/public/challenges", "", nil, 200},
		{"GET", "/api/public/challenges", "", []string{"Accept-Encoding: gzip"}, 200},
		{"HEAD", "/api/public/leaderboard", "", nil, 200},
		{"GET", "/api/public/challenges/baby-rsa", "", []string{key}, 200},
		{"GET", "/files/d990b5be905dbd3bf97cc3ff2cbd242d47fefdd8fbb93f3ed87e7c46616d80e2/handout.txt", "", nil, 200},
		{"GET", "/livez", "", nil, 200},
		{"POST", "/api/public/challenges/baby-rsa/submit", `{"flag":"flag{nope}"}`, []string{key, "Content-Type: application/json", "Expect: 100-continue"}, 400},
	} {
		got := send(base, c.method, c.path, []byte(c.body), c.headers...)
		want := send(s.URL, c.method, c.path, []byte(c.body), c.headers...)
		if c.method == "POST" {
			// Each wrong flag is an attempt of its own: the status is what
			// must agree.
			got.Header, want.Header, got.Body, want.Body = nil, nil, nil, nil
		}
		if want.Status != c.status {
			t.Errorf("%s %s: the handler answered %d, want %d", c.method, c.path, want.Status, c.status)
		}
		if got.Status != want.Status || !reflect.DeepEqual(got.Header, want.Header) || !bytes.Equal(got.Body, want.Body) {
			t.Errorf("%s %s: Serve answered %d %v %.100q, the handler %d %v %.100q", c.method, c.path,
				got.Status, got.Header, got.Body, want.Status, want.Header, want.Body)
		}
	}

	// Ten requests written at once on one connection, ten answers in order.
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, strings.Repeat("GET /api/public/leaderboard HTTP/1.1\r\nHost: x\r\n\r\n", 10))
	r := bufio.NewReader(c)
	want := send(s.URL, "GET", "/api/public/leaderboard", nil)
	for i := range 10 {
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("pipelined answer %d: %v", i, err)
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !bytes.Equal(b, want.Body) {
			t.Fatalf("pipelined answer %d: %d %.100q", i, resp.StatusCode, b)
		}
	}

	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}
