#!/usr/bin/env bash
# Time and peak memory of `flagship load` of a whole event's dump, on
# SQLite and, given a server URL, on PostgreSQL:
#
#   scripts/loadbench.sh
#   scripts/loadbench.sh 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
#   PLAYERS=1000 SOLVES=20000 ATTEMPTS=20000 RUNS=1 scripts/loadbench.sh
#
# The script builds flagship, generates the synthetic event (`flagship
# synth`, by default 10,000 players, 200,000 solves and 200,000 wrong
# attempts) into a scratch SQLite file, dumps it as YAML, then loads that
# dump RUNS times (3) into a new database each time, printing each run's
# wall time and peak resident memory (/usr/bin/time: the process's maximum
# RSS) and their medians. On PostgreSQL each run gets a fresh database
# (cmd/loadtool createdb; dropped after the run, and on ^C).
# Everything is written under one temporary directory, removed at the end.
# Each run is bounded by TIMEOUT (300s). Figures are in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."

PG=${1:-}
PLAYERS=${PLAYERS:-10000}
SOLVES=${SOLVES:-200000}
ATTEMPTS=${ATTEMPTS:-200000}
RUNS=${RUNS:-3}
TIMEOUT=${TIMEOUT:-300s}

dir=$(mktemp -d "${TMPDIR:-/tmp}/flagship-loadbench-XXXXXX")
pgdb=""
cleanup() {
	if [[ -n $pgdb ]]; then
		"$dir/loadtool" dropdb --server "$PG" "$pgdb" || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

go build -o "$dir/flagship" ./cmd/flagship
go build -o "$dir/loadtool" ./cmd/loadtool

"$dir/flagship" --db "sqlite:$dir/src.db" synth --players "$PLAYERS" --solves "$SOLVES" --attempts "$ATTEMPTS" >/dev/null
"$dir/flagship" --db "sqlite:$dir/src.db" dump >"$dir/dump.yaml"
rm -f "$dir"/src.db*
echo "dump: $((($(stat -c %s "$dir/dump.yaml") + 524288) / 1048576)) MB of YAML ($PLAYERS players, $SOLVES solves, $ATTEMPTS attempts)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# median prints the middle of its arguments (the lower middle of an even count).
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }

# bench ENGINE: RUNS loads into fresh databases of that engine.
bench() {
	local engine=$1 secs=() mbs=() i dsn out
	for ((i = 1; i <= RUNS; i++)); do
		if [[ $engine == sqlite ]]; then
			rm -f "$dir"/new.db*
			dsn="sqlite:$dir/new.db"
		else
			read -r pgdb dsn < <("$dir/loadtool" createdb --server "$PG" --owner $$)
		fi
		out=$(timeout "$TIMEOUT" /usr/bin/time -f '%e %M' "$dir/flagship" --db "$dsn" load "$dir/dump.yaml" 2>&1 >/dev/null | tail -n 1)
		if [[ $engine == postgres ]]; then
			"$dir/loadtool" dropdb --server "$PG" "$pgdb"
			pgdb=""
		fi
		read -r s kb <<<"$out"
		secs+=("$s")
		mbs+=("$((kb / 1024))")
		echo "$engine run $i: ${s} s, peak RSS $((kb / 1024)) MB"
	done
	echo "$engine median: $(median "${secs[@]}") s, peak RSS $(median "${mbs[@]}") MB"
}

bench sqlite
if [[ -n $PG ]]; then
	bench postgres
fi
