package dataset

import (
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Benchmarks spell one category several ways (Cybench "reverse", NYU CTF
// Bench "rev", an older NYU event directory "Reversing"), so that the same
// board would show two columns for one kind of task. Every benchmark reader
// passes its categories through one table; the benchmark's own spelling is
// given back for exports by BenchmarkCategory.

// categoryAliases maps a benchmark's spelling, lower-cased with runs of
// spaces, '_' and '-' as one space, to Flagship's category. A spelling
// not listed is kept, lower-cased.
var categoryAliases = map[string]string{
	"rev": "rev", "re": "rev", "reverse": "rev", "reversing": "rev", "reverse engineering": "rev",
	"crypto": "crypto", "cryptography": "crypto", "cry": "crypto",
	"forensics": "forensics", "forensic": "forensics", "for": "forensics",
	"pwn": "pwn", "pwnable": "pwn", "binary exploitation": "pwn", "exploitation": "pwn",
	"web": "web", "web exploitation": "web", "web security": "web",
	"misc": "misc", "miscellaneous": "misc", "msc": "misc",
	"steganography": "stego", "stego": "stego",
}

// benchmarkSpellings are, per benchmark (ctf.BenchmarkNYU, ctf.BenchmarkCybench),
// the categories it spells otherwise than Flagship.
var benchmarkSpellings = map[string]map[string]string{
	ctf.BenchmarkCybench: {"rev": "reverse", "stego": "steganography"},
	ctf.BenchmarkNYU:     {},
}

// normalCategory is Flagship's category for a benchmark's spelling; ""
// for a blank one.
func normalCategory(s string) string {
	key := strings.Join(strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(strings.ToLower(s))), " ")
	if c, ok := categoryAliases[key]; ok {
		return c
	}
	return strings.ToLower(strings.TrimSpace(s))
}

// BenchmarkCategory is category, one of Flagship's, as benchmark ("nyu",
// "cybench") spells it: an export in the benchmark's shape names tasks
// the way its own tools do (Cybench's "reverse" is Flagship's "rev"). A
// category or benchmark it does not know is returned as given.
func BenchmarkCategory(benchmark, category string) string {
	if s, ok := benchmarkSpellings[strings.ToLower(strings.TrimSpace(benchmark))][category]; ok {
		return s
	}
	return category
}
