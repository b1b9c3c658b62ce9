// Command baseline is the load test's yardstick: a Go HTTP server that
// writes a fixed body from memory, the most a Go server can answer on this
// machine, so other figures can be read against it. By default the body is
// 40 bytes; --body and --header make it answer what an endpoint answers
// (the same bytes and headers), the ceiling that endpoint is measured
// against.
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
)

var body = []byte(`{"ok":true,"note":"fixed 40-byte body."}`) // 40 bytes

// headers collects repeated --header "Name: value" flags.
type headers [][2]string

func (h *headers) String() string { return "" }

func (h *headers) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	if !ok {
		return flagError(s)
	}
	*h = append(*h, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
	return nil
}

type flagError string

func (e flagError) Error() string { return "want Name: value, not " + strconv.Quote(string(e)) }

func main() {
	addr := flag.String("addr", "127.0.0.1:18089", "listen address")
	bodyFile := flag.String("body", "", "answer this file's bytes instead of the 40-byte body")
	var extra headers
	flag.Var(&extra, "header", "a header to answer with, Name: value (repeatable); default Content-Type: application/json")
	flag.Parse()
	if *bodyFile != "" {
		b, err := os.ReadFile(*bodyFile)
		if err != nil {
			log.Fatal(err)
		}
		body = b
	}
	if len(extra) == 0 {
		extra = headers{{"Content-Type", "application/json"}}
	}
	length := strconv.Itoa(len(body))
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for _, kv := range extra {
			h.Set(kv[0], kv[1])
		}
		h.Set("Content-Length", length)
		w.Write(body)
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
