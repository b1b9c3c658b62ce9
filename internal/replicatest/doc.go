// Package replicatest proves that several `flagship serve` replicas on one
// database behave as one platform. Its tests build the real
// binary, run three replicas on loopback, drive a mixed player workload
// across them (one replica killed with SIGKILL mid-load and restarted),
// check the public API's invariants on every replica and again after a
// restart of all replicas from the database, and measure how fast a solve
// on one replica shows on the others. It holds tests only:
//
//	go test -race -count=1 -v ./internal/replicatest
//	FLAGSHIP_TEST_BACKEND=postgres \
//	FLAGSHIP_TEST_POSTGRES='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' \
//	go test -race -count=1 -v ./internal/replicatest
//
// FLAGSHIP_TEST_RACE_REPLICAS=1 also builds the replicas with the race
// detector (a lighter workload then, as the servers run slower).
package replicatest
