package cli

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestServeAccessLog: serve logs one line per request, written in batches,
// and loses none on shutdown: every request answered before the stop is
// in the log once serve has returned. `--access-log=false` (env
// FLAGSHIP_ACCESS_LOG=off) logs none, and the other lines still come.
func TestServeAccessLog(t *testing.T) {
	const requests = 300
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		want int
	}{
		{"on", nil, nil, requests},
		{"flag off", []string{"--access-log=false"}, nil, 0},
		{"env off", nil, map[string]string{"FLAGSHIP_ACCESS_LOG": "off"}, 0},
		{"flag over env", []string{"--access-log=true"}, map[string]string{"FLAGSHIP_ACCESS_LOG": "off"}, requests},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := startServe(t, c.args, c.env)
			base := srv.base
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Go(func() {
					for range requests / 4 {
						resp, err := http.Get(base + "/api/public/challenges")
						if err != nil {
							t.Error(err)
							return
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK {
							t.Errorf("client %d: status %d", w, resp.StatusCode)
						}
					}
				})
			}
			wg.Wait()
			log := srv.stop(t) // at once: most lines still wait in the batch
			if got := strings.Count(log, "msg=request method=GET path=/api/public/challenges status=200 "); got != c.want {
				t.Errorf("%d request lines for %d requests, want %d", got, requests, c.want)
			}
			if got := strings.Count(log, "msg=request"); got != c.want {
				t.Errorf("%d request lines in all, want %d", got, c.want)
			}
			for _, line := range []string{`msg="event state built"`, `msg="shutting down: finishing in-flight requests"`} {
				if !strings.Contains(log, line) {
					t.Errorf("no %s in the log:\n%s", line, log)
				}
			}
		})
	}
}
