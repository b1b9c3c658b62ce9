package mcp_test

import (
	"testing"

	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// TestMain runs the tests on the backend storetest chooses (SQLite by
// default, PostgreSQL with FLAGSHIP_TEST_BACKEND=postgres) and hashes
// passwords at the least cost the server accepts: the tests log in
// hundreds of times, and argon2 at production's cost took most of their
// time.
func TestMain(m *testing.M) {
	secret.UseTestCost()
	storetest.Main(m)
}
