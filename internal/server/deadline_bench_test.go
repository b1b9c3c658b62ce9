package server

import (
	"net"
	"testing"
	"time"
)

// BenchmarkRequestDeadlines: the deadlines net/http moves on a keep-alive
// connection for one request with serve's timeouts (the whole request's,
// the write's, the background read's none, its stop and none again, the
// write's none, the idle wait's, the next headers'), on the socket itself
// and on a sweptConn; "none" is the same calls with no timeouts set, as
// cmd/baseline's server makes them.
func BenchmarkRequestDeadlines(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer server.Close()
	s := newSweeper(sweepEvery)
	defer s.stop()
	swept := s.add(server.(*net.TCPConn))
	request := func(c net.Conn) {
		t0 := time.Now()
		c.SetReadDeadline(t0.Add(30 * time.Second))
		c.SetWriteDeadline(time.Now().Add(60 * time.Second))
		c.SetReadDeadline(time.Time{})
		c.SetReadDeadline(aLongTimeAgo)
		c.SetReadDeadline(time.Time{})
		c.SetWriteDeadline(time.Time{})
		c.SetReadDeadline(time.Now().Add(120 * time.Second))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
	}
	b.Run("socket", func(b *testing.B) {
		for b.Loop() {
			request(server)
		}
	})
	b.Run("swept", func(b *testing.B) {
		for b.Loop() {
			request(swept)
		}
	})
	b.Run("none", func(b *testing.B) {
		for b.Loop() {
			server.SetReadDeadline(time.Time{})
			server.SetWriteDeadline(time.Time{})
			server.SetReadDeadline(time.Time{})
			server.SetReadDeadline(aLongTimeAgo)
			server.SetReadDeadline(time.Time{})
			server.SetWriteDeadline(time.Time{})
			server.SetReadDeadline(time.Time{})
			server.SetReadDeadline(time.Time{})
		}
	})
}
