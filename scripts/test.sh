#!/usr/bin/env bash
# The test command of the README: every test of every package, with the race
# detector, on real SQLite files; then, if FLAGSHIP_TEST_POSTGRES names a
# PostgreSQL server, the packages whose tests take their database from
# internal/store/storetest run again on PostgreSQL (FLAGSHIP_TEST_BACKEND=
# postgres; each package creates a database of its own there and drops it).
# Under CI (CI=true) a skipped test, or a missing FLAGSHIP_TEST_POSTGRES,
# fails the run, since CI provides everything the suite needs.
set -uo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=1 # the race detector needs cgo

log=$(mktemp)
trap 'rm -f "$log"' EXIT
total_passed=0 total_failed=0 total_skipped=0 worst=0

# run LABEL ARGS...: go test ARGS, showing everything but the chatter of
# passing tests, and adding up its counts.
run() {
	local label=$1
	shift
	local start=$SECONDS
	go test -race -count=1 -v "$@" >"$log" 2>&1
	local status=$?
	grep -v -E '^[[:space:]]*(=== (RUN|PAUSE|CONT|NAME)|--- PASS|PASS$)' "$log"
	local passed failed skipped
	passed=$(grep -c -E '^[[:space:]]*--- PASS' "$log")
	failed=$(grep -c -E '^[[:space:]]*--- FAIL' "$log")
	skipped=$(grep -c -E '^[[:space:]]*--- SKIP' "$log")
	echo "($label run) passed $passed, failed $failed, skipped $skipped in $((SECONDS - start))s"
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
	total_skipped=$((total_skipped + skipped))
	if [ "$status" -ne 0 ]; then
		worst=$status
	fi
	if [ "${CI:-}" = "true" ] && [ "$skipped" -gt 0 ]; then
		echo "CI must run every test, but these were skipped on $label:" >&2
		grep -E -- '--- SKIP' "$log" >&2
		worst=1
	fi
	if [ "$status" -eq 0 ] && [ "$passed" -eq 0 ]; then
		echo "the $label run passed no test" >&2
		worst=1
	fi
}

echo "== SQLite: go test -race ./..."
run sqlite ./...

if [ -n "${FLAGSHIP_TEST_POSTGRES:-}" ]; then
	# The packages with a test that imports storetest.
	pkgs=$(go list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... |
		awk '{ for (i = 2; i <= NF; i++) if ($i ~ /\/internal\/store\/storetest$/) { print $1; next } }')
	if [ -z "$pkgs" ]; then
		echo "no package's tests use internal/store/storetest: nothing to run on PostgreSQL" >&2
		worst=1
	else
		echo "== PostgreSQL: go test -race" $pkgs
		FLAGSHIP_TEST_BACKEND=postgres run postgres $pkgs
	fi
else
	echo "PostgreSQL run skipped: set FLAGSHIP_TEST_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable (a server where that role may create databases) to run the database tests on PostgreSQL too."
	if [ "${CI:-}" = "true" ]; then
		echo "CI must run the PostgreSQL tests, but FLAGSHIP_TEST_POSTGRES is not set" >&2
		worst=1
	fi
fi

echo "tests: $total_passed passed, $total_failed failed, $total_skipped skipped"
exit "$worst"
