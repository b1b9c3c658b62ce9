package replicatest

import (
	"testing"

	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// freshDatabase returns the DSN of a new, empty database on the backend the
// environment chooses (storetest: FLAGSHIP_TEST_BACKEND sqlite or postgres,
// FLAGSHIP_TEST_POSTGRES the server), removed when the test ends, after the
// replicas (whose cleanup is registered later, so it runs first). On
// PostgreSQL without a server configured, the test skips with how to
// enable it.
func freshDatabase(t *testing.T) (backend, dsn string) {
	t.Helper()
	dsn = storetest.DSN(t)
	return storetest.Backend(), dsn
}
