package golden

import (
	"path/filepath"
	"testing"
)

func TestReadable(t *testing.T) {
	if got, want := readable([]byte(`{"a":[1]}`)), "{\n  \"a\": [\n    1\n  ]\n}"; got != want {
		t.Errorf("readable(JSON) = %q, want %q", got, want)
	}
	if got := readable([]byte("not json\n")); got != "not json\n" {
		t.Errorf("readable(text) = %q", got)
	}
	if got, want := Path("board"), filepath.Join("testdata", "board.golden"); got != want {
		t.Errorf("Path(board) = %q, want %q", got, want)
	}
}
