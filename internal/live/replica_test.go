package live

import "testing"

// Write is on every write's path, the group commit's included: it must
// not allocate.
func TestWriteDoesNotAllocate(t *testing.T) {
	r := New(nil, Options{})
	if n := testing.AllocsPerRun(100, func() { r.Write()() }); n != 0 {
		t.Errorf("Write allocates %v times per call, want 0", n)
	}
}
