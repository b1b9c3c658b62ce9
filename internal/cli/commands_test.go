package cli

import (
	"strings"
	"testing"
)

// TestEveryCommandIsWired: each command of the table, and each of its
// subcommands, answers -h with its own help (exit 0), and the usage text
// lists it, so a command added to the table is reachable and documented.
func TestEveryCommandIsWired(t *testing.T) {
	for _, c := range commands {
		if !strings.Contains(usage, "\n  "+c.name+" ") {
			t.Errorf("the usage does not list %q:\n%s", c.name, usage)
		}
		paths := [][]string{{c.name}}
		if len(c.subs) > 0 {
			paths = nil
			for _, s := range c.subs {
				paths = append(paths, []string{c.name, s.name})
			}
		}
		for _, p := range paths {
			code, _, stderr := run(t, "", append(p, "-h")...)
			if code != 0 || !strings.Contains(stderr, "Usage: flagship "+strings.Join(p, " ")) {
				t.Errorf("flagship %s -h: exit %d, stderr %q", strings.Join(p, " "), code, stderr)
			}
		}
	}
}
