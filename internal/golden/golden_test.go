package golden

import (
	"strings"
	"testing"
)

func TestReadable(t *testing.T) {
	if got, want := readable([]byte(`{"a":[1]}`)), "{\n  \"a\": [\n    1\n  ]\n}\n\n(as sent)\n{\"a\":[1]}"; got != want {
		t.Errorf("readable(JSON) = %q, want %q", got, want)
	}
	if got := readable([]byte("not json\n")); got != "not json\n" {
		t.Errorf("readable(text) = %q", got)
	}
	if got := Path("board"); !strings.HasSuffix(got, "testdata/board.golden") {
		t.Errorf("Path(board) = %q", got)
	}
}
