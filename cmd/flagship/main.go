// Command flagship is the Flagship CTF platform: server and operator tools.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/flagshipctf/flagship/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx)
	stop()
	os.Exit(code)
}
