package server_test

import (
	"testing"

	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// TestMain drops the package's PostgreSQL test database, if the tests made
// one (FLAGSHIP_TEST_BACKEND=postgres).
func TestMain(m *testing.M) { storetest.Main(m) }
