package ctf

import "strings"

// FlagFormatOf is the shape of c's flag as players and agents are told it
// (docs/product.md#flag-formats), the first that applies of:
//
//   - the challenge's own FlagFormat;
//   - for per-player flags, the shape PlayerFlag gives them (word{...});
//   - derived from its static flags: when every one is word{…} with the
//     same word ([A-Za-z0-9_]{1,32}, as csawctf{…}, HTB{…}, SEKAI{…}),
//     word{...} — only the word and the braces, so nothing of a flag's
//     secret part is told;
//   - the event's flag format;
//   - "" (none known).
func FlagFormatOf(c Challenge, eventFormat string) string {
	if f := strings.TrimSpace(c.FlagFormat); f != "" {
		return f
	}
	if c.PerPlayer() {
		return playerFlagWord(&c) + "{...}"
	}
	if word := staticFlagWord(c.Flags); word != "" {
		return word + "{...}"
	}
	return strings.TrimSpace(eventFormat)
}

// staticFlagWord is the word every static flag of flags is wrapped in
// (word{…}), or "" when there is no static flag, one is not of that shape,
// or two differ.
func staticFlagWord(flags []Flag) string {
	word := ""
	for _, f := range flags {
		if f.Kind != FlagStatic {
			continue
		}
		m := flagWord.FindStringSubmatch(f.Content)
		if m == nil || !strings.HasSuffix(f.Content, "}") || (word != "" && m[1] != word) {
			return ""
		}
		word = m[1]
	}
	return word
}
