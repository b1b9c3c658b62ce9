package apitest

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// TestFileDownloadsMemory: eight slow downloads at once of a 40 MB file
// add less than 50 MB to the server's resident memory (they once took it from 44 MB to 656 MB when every request read the whole
// blob), and each gets every byte. The server is the real binary, built
// as it ships (no race detector, whose shadow memory would be measured
// too), in a process of its own.
func TestFileDownloadsMemory(t *testing.T) {
	t.Parallel()
	const size, clients = 40 << 20, 8
	dir := t.TempDir()
	data := make([]byte, size)
	rand.Read(data)
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	data = nil
	ds, err := dataset.Decode([]byte(`challenges:
  - {slug: big, title: Big, categories: [misc], difficulty: Easy, points: 1, flags: [f], file: {path: big.bin}}
`), filepath.Join(dir, "event.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dsn := storetest.DSN(t)
	db := storetest.OpenDSN(t, dsn)
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.Load(context.Background(), db, ds); err != nil {
		t.Fatal(err)
	}

	bin := filepath.Join(t.TempDir(), "flagship")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/flagship")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--db", dsn, "serve", "--addr", "127.0.0.1:0", "--cache-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "FLAGSHIP_LOG_LEVEL=warn")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "Flagship is listening on ")
	if err != nil || !ok {
		t.Fatalf("the server printed %q: %v", line, err)
	}
	url := base + "/files/" + sha + "/big.bin"
	rss := func() int64 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		if err != nil {
			t.Error(err)
			return 0
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
		t.Error("no VmRSS")
		return 0
	}
	// Once the server answers, before any download.
	if r, err := http.Get(base + "/api/public/health"); err != nil || r.StatusCode != 200 {
		t.Fatalf("health: %v %v", r, err)
	}
	before := rss()
	var peak atomic.Int64
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
				if r := rss(); r > peak.Load() {
					peak.Store(r)
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(url)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			// A slow client: 64 KiB every 10 ms, about 6 MB/s.
			h := sha256.New()
			buf := make([]byte, 64<<10)
			n := int64(0)
			for {
				k, err := io.ReadFull(resp.Body, buf)
				h.Write(buf[:k])
				n += int64(k)
				if err != nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if got := hex.EncodeToString(h.Sum(nil)); n != size || got != sha {
				t.Errorf("client %d got %d bytes hashing to %s", i, n, got[:12])
			}
		}()
	}
	wg.Wait()
	close(done)
	<-sampled // before the server is stopped
	grew := peak.Load() - before
	t.Logf("server resident memory: %d MB before, peak %d MB during %d downloads of %d MB (+%d MB)",
		before>>20, peak.Load()>>20, clients, size>>20, grew>>20)
	if grew >= 50<<20 {
		t.Errorf("the downloads added %d MB of resident memory, want < 50 MB", grew>>20)
	}
}
