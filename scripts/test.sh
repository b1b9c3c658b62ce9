#!/usr/bin/env bash
# The test command of the README: every test of every package, with the race
# detector, on real SQLite files. Under CI (CI=true) a skipped test fails the
# run, since CI provides everything the suite needs.
set -uo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=1 # the race detector needs cgo

log=$(mktemp)
trap 'rm -f "$log"' EXIT
go test -race -count=1 -v ./... >"$log" 2>&1
status=$?
# Show everything but the chatter of passing tests.
grep -v -E '^[[:space:]]*(=== (RUN|PAUSE|CONT|NAME)|--- PASS|PASS$)' "$log"
passed=$(grep -c -E '^[[:space:]]*--- PASS' "$log")
failed=$(grep -c -E '^[[:space:]]*--- FAIL' "$log")
skipped=$(grep -c -E '^[[:space:]]*--- SKIP' "$log")
if [ "$status" -ne 0 ]; then
	echo "tests: $passed passed, $failed failed, $skipped skipped"
	exit "$status"
fi
if [ "${CI:-}" = "true" ] && [ "$skipped" -gt 0 ]; then
	echo "CI must run every test, but these were skipped:" >&2
	grep -E -- '--- SKIP' "$log" >&2
	echo "tests: $passed passed, $failed failed, $skipped skipped"
	exit 1
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
