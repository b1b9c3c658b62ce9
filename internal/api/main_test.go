package api

import (
	"testing"

	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// The leaderboard's tests run on the backend storetest chooses: SQLite by
// default, PostgreSQL in the second run of scripts/test.sh.
func TestMain(m *testing.M) { storetest.Main(m) }
