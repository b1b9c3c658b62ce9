// Command baseline is the load test's yardstick: a Go HTTP server that
// writes a fixed 40-byte body from memory, the most a Go server can answer
// on this machine, so other figures can be read against it.
package main

import (
	"flag"
	"log"
	"net/http"
	"strconv"
)

var body = []byte(`{"ok":true,"note":"fixed 40-byte body."}`) // 40 bytes

func main() {
	addr := flag.String("addr", "127.0.0.1:18089", "listen address")
	flag.Parse()
	length := strconv.Itoa(len(body))
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", length)
		w.Write(body)
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
