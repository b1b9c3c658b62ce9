package dataset

import (
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"go.yaml.in/yaml/v3"
)

// Origin is where a challenge was read from: a benchmark ("nyu" or
// "cybench") and the task's directory relative to the checkout's root. The
// benchmark readers set it; a dump writes it so that a dump loads back over
// the same challenges (a load never replaces a challenge of another origin).
type Origin struct {
	Benchmark string `json:"benchmark" yaml:"benchmark"`
	Path      string `json:"path" yaml:"path"`
	// Name is the task's name in the benchmark's own results: NYU's
	// canonical name (2021q-web-poem_collection), Cybench's task path.
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
}

// Of is o as the platform keeps it (zero for nil).
func (o *Origin) Of() ctf.Origin {
	if o == nil {
		return ctf.Origin{}
	}
	return ctf.Origin{Benchmark: o.Benchmark, Path: o.Path, Name: o.Name}
}

// OriginOf is o as a dataset writes it (nil for the organiser's own).
func OriginOf(o ctf.Origin) *Origin {
	if o == (ctf.Origin{}) {
		return nil
	}
	return &Origin{Benchmark: o.Benchmark, Path: o.Path, Name: o.Name}
}

// originFields read a challenge's origin mapping.
var originFields = newMapping(rejectUnknown, nil,
	field[Origin]{"benchmark", func(d *decoder, o *Origin, v *yaml.Node, path string) {
		switch b := strings.ToLower(strings.TrimSpace(d.str(v, path))); b {
		case ctf.BenchmarkNYU, ctf.BenchmarkCybench:
			o.Benchmark = b
		default:
			d.fail(path, "must be %s or %s, not %q", ctf.BenchmarkNYU, ctf.BenchmarkCybench, b)
		}
	}},
	asTrimmed("path", func(o *Origin) *string { return &o.Path }),
	asTrimmed("name", func(o *Origin) *string { return &o.Name }),
)
