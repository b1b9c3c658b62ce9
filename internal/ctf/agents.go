package ctf

import (
	"strings"
	"unicode/utf8"
)

// MaxAgentsPerOwner bounds the agents one person may run: enough for a
// comparison of models, not a way to flood the board.
const MaxAgentsPerOwner = 10

// ValidateKind: human or agent ("" reads as human).
func ValidateKind(kind AccountKind) error {
	if kind != "" && kind != KindHuman && kind != KindAgent {
		return FieldErrorf("kind", "must be human or agent, not %q", kind)
	}
	return nil
}

// ValidateAgent checks what describes an agent account: the model that
// plays (required) and the harness that drives it (optional), each at most
// 64 characters of printable text; an agent is never an admin.
func ValidateAgent(model, harness string, role Role) error {
	for _, f := range []struct{ name, value string }{{"model", model}, {"harness", harness}} {
		if utf8.RuneCountInString(f.value) > MaxNameChars {
			return FieldErrorf(f.name, "must be at most %d characters", MaxNameChars)
		}
		if !printable(f.value) {
			return FieldErrorf(f.name, "must be printable text")
		}
	}
	if strings.TrimSpace(model) == "" {
		return FieldErrorf("model", "is required: name the model the agent runs (e.g. claude-sonnet-4-5)")
	}
	if role == RoleAdmin {
		return FieldErrorf("role", "an agent cannot be an admin")
	}
	return nil
}
