package replicatest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// flagshipBin is the real binary under test, built once by TestMain.
var flagshipBin string

// raceReplicasEnv, set to 1, builds the replicas with the race detector
// (and checkLogs fails on a race they report). Off by default: it slows the
// servers five- to tenfold, which shrinks the mixed workload from thousands
// of submissions to a few hundred.
const raceReplicasEnv = "FLAGSHIP_TEST_RACE_REPLICAS"

// TestMain builds the flagship binary, runs the tests, and drops the
// package's PostgreSQL database if they made one (storetest.Main, which
// exits). The binary goes beside the test binary when that is in go test's
// work directory, which go test removes afterwards; otherwise (a test
// binary run by hand) into one fixed temporary path, overwritten each run.
func TestMain(m *testing.M) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("flagship-replicatest-%d", os.Getuid()))
	if exe, err := os.Executable(); err == nil && strings.Contains(exe, "go-build") {
		dir = filepath.Dir(exe)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "replicatest:", err)
		os.Exit(1)
	}
	flagshipBin = filepath.Join(dir, "flagship")
	args := []string{"build", "-o", flagshipBin}
	if os.Getenv(raceReplicasEnv) == "1" {
		args = append(args, "-race")
	}
	args = append(args, "github.com/flagshipctf/flagship/cmd/flagship")
	cmd := exec.Command(goTool(), args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "replicatest: go build of the flagship binary failed:", err)
		os.Exit(1)
	}
	storetest.Main(m)
}

// goTool finds the go command: the toolchain running the test first.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
