package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// sweptPair is a swept server side of a loopback TCP connection, and its
// client side.
func sweptPair(t *testing.T, every time.Duration) (*sweptConn, net.Conn, *sweeper) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s := newSweeper(every)
	t.Cleanup(s.stop)
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	c, err := sweptListener{ln, s}.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// Were a deadline never to come, a read would wait for ever: closed
	// after a while, it fails with another error.
	watchdog := time.AfterFunc(5*time.Second, func() { c.Close() })
	t.Cleanup(func() { watchdog.Stop() })
	return c.(*sweptConn), client, s
}

// readWithin reads one byte from c and reports its error and how long it
// took.
func readWithin(c net.Conn) (error, time.Duration) {
	start := time.Now()
	_, err := c.Read(make([]byte, 1))
	return err, time.Since(start)
}

// byteAfter has client send a byte after d, and checks that c reads it
// (and waited for it).
func byteAfter(t *testing.T, c, client net.Conn, d time.Duration) {
	t.Helper()
	time.AfterFunc(d, func() { client.Write([]byte("x")) })
	if err, took := readWithin(c); err != nil || took < d/2 {
		t.Errorf("read: %v after %v, want the byte sent after %v", err, took, d)
	}
}

// TestSweptDeadlines: a swept connection's deadlines take effect as the
// socket's own would, at most a sweep late; moved before they pass, they
// do not; one set in the past stops a blocked read at once.
func TestSweptDeadlines(t *testing.T) {
	t.Parallel()
	const every = 10 * time.Millisecond
	// A sweep, and what a busy machine adds to any timer: the bound is
	// that a deadline comes, never early and not much later.
	const late = every + 500*time.Millisecond

	t.Run("read deadline", func(t *testing.T) {
		t.Parallel()
		c, _, _ := sweptPair(t, every)
		c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		err, took := readWithin(c)
		if !errors.Is(err, os.ErrDeadlineExceeded) || took < 50*time.Millisecond || took > 50*time.Millisecond+late {
			t.Errorf("read failed with %v after %v, want a deadline error after 50 ms", err, took)
		}
		// A new deadline, and the read waits for it again.
		c.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
		if err, took := readWithin(c); !errors.Is(err, os.ErrDeadlineExceeded) || took < 30*time.Millisecond {
			t.Errorf("second read failed with %v after %v, want a deadline error after 30 ms", err, took)
		}
	})
	t.Run("moved before it passes", func(t *testing.T) {
		t.Parallel()
		c, client, _ := sweptPair(t, every)
		c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		time.AfterFunc(5*time.Millisecond, func() { c.SetReadDeadline(time.Now().Add(time.Second)) })
		byteAfter(t, c, client, 100*time.Millisecond)
	})
	t.Run("cut, then moved", func(t *testing.T) {
		t.Parallel()
		// The read is cut by a sweep, and its deadline moved before the
		// read sees that: it goes on waiting.
		c, client, _ := sweptPair(t, every)
		c.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
		time.Sleep(3 * every)
		c.mu.Lock()
		cut := c.read.cut
		c.read.want = time.Now().Add(time.Second) // as a SetReadDeadline racing the read would leave it
		c.mu.Unlock()
		if !cut {
			t.Fatal("a sweep did not cut the read")
		}
		byteAfter(t, c, client, 50*time.Millisecond)
	})
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		c, client, _ := sweptPair(t, every)
		c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		c.SetReadDeadline(time.Time{})
		byteAfter(t, c, client, 5*every)
	})
	t.Run("past stops a blocked read at once", func(t *testing.T) {
		t.Parallel()
		c, client, _ := sweptPair(t, time.Hour) // no sweep comes
		errc := make(chan error, 1)
		go func() {
			err, _ := readWithin(c)
			errc <- err
		}()
		time.Sleep(20 * time.Millisecond)
		start := time.Now()
		c.SetReadDeadline(aLongTimeAgo) // net/http's abortPendingRead
		if err := <-errc; !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) > 20*time.Millisecond {
			t.Errorf("read stopped with %v after %v", err, time.Since(start))
		}
		// Then none: the connection reads again.
		c.SetReadDeadline(time.Time{})
		client.Write([]byte("x"))
		if err, _ := readWithin(c); err != nil {
			t.Errorf("read after the stop: %v", err)
		}
	})
	t.Run("write deadline", func(t *testing.T) {
		t.Parallel()
		c, _, _ := sweptPair(t, every)
		c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
		start := time.Now()
		// The client reads nothing: the buffers fill and the write waits.
		n, err := c.Write(make([]byte, 64<<20))
		if took := time.Since(start); !errors.Is(err, os.ErrDeadlineExceeded) || n >= 64<<20 || took > 50*time.Millisecond+late {
			t.Errorf("write: %d bytes, %v after %v; want a part, then a deadline error after 50 ms", n, err, took)
		}
	})
	t.Run("closed", func(t *testing.T) {
		t.Parallel()
		c, _, s := sweptPair(t, every)
		c.Close()
		if err := c.SetReadDeadline(time.Now().Add(time.Second)); !errors.Is(err, net.ErrClosed) {
			t.Errorf("deadline on a closed connection: %v, want net.ErrClosed", err)
		}
		s.mu.Lock()
		_, kept := s.conns[c]
		s.mu.Unlock()
		if kept {
			t.Error("the sweeper still holds a closed connection")
		}
	})
}

// TestSweeperStopsWithTheLastConnection: stopped, a sweeper keeps the
// deadlines of the connections still open, and ends with the last.
func TestSweeperStopsWithTheLastConnection(t *testing.T) {
	t.Parallel()
	c, _, s := sweptPair(t, 5*time.Millisecond)
	s.stop()
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if err, _ := readWithin(c); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read after stop: %v, want its deadline kept", err)
	}
	select {
	case <-s.done:
		t.Fatal("the sweeper ended with a connection open")
	case <-time.After(20 * time.Millisecond):
	}
	c.Close()
	select {
	case <-s.done:
	case <-time.After(time.Second):
		t.Fatal("the sweeper did not end after the last connection closed")
	}
}

// TestSweptServerTimeouts: net/http's timeouts on swept connections. A
// client that sends half its headers is cut off after ReadHeaderTimeout
// (and a sweep), an idle one after IdleTimeout; one that keeps asking is
// answered every time, past all the timeouts; a file is sent whole (the
// connection's sendfile).
func TestSweptServerTimeouts(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "big")
	body := bytes.Repeat([]byte("flagship"), 1<<17) // 1 MiB
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, file) })
	const headers, idle = 150 * time.Millisecond, 300 * time.Millisecond
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: headers, ReadTimeout: 250 * time.Millisecond,
		WriteTimeout: 250 * time.Millisecond, IdleTimeout: idle}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := newSweeper(10 * time.Millisecond)
	go srv.Serve(sweptListener{ln, s})
	t.Cleanup(func() { srv.Close(); s.stop() })
	addr := ln.Addr().String()

	dial := func(t *testing.T) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// closedAfter checks that the server closed c after want from start,
	// and not much later.
	closedAfter := func(t *testing.T, c net.Conn, start time.Time, want time.Duration) {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		io.Copy(io.Discard, c)
		if took := time.Since(start); took < want || took > want+500*time.Millisecond {
			t.Errorf("closed after %v, want after %v", took, want)
		}
	}
	t.Run("half the headers", func(t *testing.T) {
		t.Parallel()
		start := time.Now() // the server's wait starts once it accepts
		c := dial(t)
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n")
		closedAfter(t, c, start, headers)
	})
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		c := dial(t)
		start := time.Now() // the server's wait starts once it answers
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		closedAfter(t, c, start, idle)
	})
	t.Run("busy", func(t *testing.T) {
		t.Parallel()
		c := dial(t)
		r := bufio.NewReader(c)
		for start := time.Now(); time.Since(start) < 2*idle; {
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatalf("after %v: %v", time.Since(start), err)
			}
			b, _ := io.ReadAll(resp.Body)
			if string(b) != "ok" {
				t.Fatalf("answer %q", b)
			}
			time.Sleep(headers / 3)
		}
	})
	t.Run("file", func(t *testing.T) {
		t.Parallel()
		resp, err := http.Get("http://" + addr + "/file")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || !bytes.Equal(b, body) {
			t.Errorf("file: %d bytes (%v), want %d", len(b), err, len(body))
		}
	})
}
