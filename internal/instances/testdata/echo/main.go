// Command echo is the challenge the instances' tests run: a static TCP
// service that greets each connection with its flag, then echoes lines back.
// It also misbehaves on request, so tests can show that the engine's limits
// hold:
//
//	eat-memory  allocates and touches memory until the kernel kills the
//	            container (it gives up at 1 GiB, so a missing limit fails
//	            the test rather than the machine)
//	fork-bomb   starts copies of itself until the kernel refuses one, then
//	            answers how many it started and ends them
//	status      answers the process's NoNewPrivs and CapEff lines
//	dial ADDR   tries a TCP connection to ADDR (host:port) for 3 seconds and
//	            answers "dial: ok" or "dial: " and the error, so tests can
//	            show what an instance cannot reach
//
// It listens on PORT (default 1337) and greets with the value of the
// variable named by FLAG_ENV (default FLAG). Built with CGO_ENABLED=0, it
// runs in an image FROM scratch.
package main

import (
	"bufio"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		// A fork-bomb child: hold a process slot for a while, then go, so
		// that a child its parent failed to end does not linger.
		time.Sleep(30 * time.Second)
		return
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "1337"
	}
	flagEnv := os.Getenv("FLAG_ENV")
	if flagEnv == "" {
		flagEnv = "FLAG"
	}
	ln, err := net.Listen("tcp", ":"+port)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("echo: listening on %s", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go serve(c, os.Getenv(flagEnv))
	}
}

func serve(c net.Conn, flag string) {
	defer c.Close()
	fmt.Fprintln(c, flag)
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		line := sc.Text()
		if addr, ok := strings.CutPrefix(line, "dial "); ok {
			fmt.Fprintln(c, dial(addr))
			continue
		}
		switch line {
		case "eat-memory":
			fmt.Fprintln(c, eatMemory())
		case "fork-bomb":
			fmt.Fprintln(c, forkBomb())
		case "status":
			fmt.Fprintln(c, status())
		default:
			fmt.Fprintln(c, line)
		}
	}
}

// eatMemory allocates 1 MiB at a time, writing every page so that the
// memory is really used, until the container is killed or 1 GiB is held.
func eatMemory() string {
	const chunk, most = 1 << 20, 1024
	var held [][]byte
	for len(held) < most {
		b := make([]byte, chunk)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		held = append(held, b)
	}
	return fmt.Sprintf("eat-memory: still alive holding %d MiB", len(held))
}

// forkBomb starts children until one is refused, at most 1000 or for 20
// seconds, then ends them all.
func forkBomb() string {
	self, err := os.Executable()
	if err != nil {
		return "fork-bomb: " + err.Error()
	}
	var kids []*exec.Cmd
	defer func() {
		for _, k := range kids {
			_ = k.Process.Kill()
			_ = k.Wait()
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for len(kids) < 1000 && time.Now().Before(deadline) {
		k := exec.Command(self, "child")
		// One P keeps each child to few threads: the limit counts them.
		k.Env = []string{"GOMAXPROCS=1"}
		if err := k.Start(); err != nil {
			return fmt.Sprintf("fork-bomb: started %d, refused: %v", len(kids), err)
		}
		kids = append(kids, k)
	}
	return fmt.Sprintf("fork-bomb: started %d, never refused", len(kids))
}

// status reports the privilege lines of /proc/self/status.
func status() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "status: " + err.Error()
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "NoNewPrivs:") || strings.HasPrefix(l, "CapEff:") {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
	}
	return "status: " + strings.Join(out, "; ")
}

// dial tries a connection to addr.
func dial(addr string) string {
	c, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		return "dial: " + err.Error()
	}
	c.Close()
	return "dial: ok"
}
