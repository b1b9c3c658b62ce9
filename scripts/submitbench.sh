#!/usr/bin/env bash
# Wrong-flag submissions through the whole server on loopback (issue 10's
# write target), bounded in time (about 2 minutes): builds flagship and
# the 40-byte baseline, generates a 2,000-player event (40,000 solves,
# 400,000 wrong attempts, 1,000 API keys) into SQLite and, when
# FLAGSHIP_BENCH_PG names a PostgreSQL server, into a fresh database there,
# starts one `flagship serve` on each in turn and runs wrk with
# scripts/submit_wrong.lua against it (the default rate limit on, never
# reached), then the baseline in the same run. It prints requests/s, p99,
# and the server's CPU time per request (utime+stime of the process, so
# that a busy machine shows as a lower rate, not a higher cost). Every
# answered submission was durable before its answer (group commit).
#
#   scripts/submitbench.sh
#   FLAGSHIP_BENCH_PG='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' scripts/submitbench.sh
#
# Knobs: DURATION (10s), CONNS (64), PLAYERS (2000; SOLVES and ATTEMPTS 20
# and 200 a player), RUNS (1: wrk runs per
# engine, each followed by the baseline, a minute apart so that the rate
# limit's window has passed), PORT, BASELINE_PORT. Figures: docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
CONNS=${CONNS:-64}
PLAYERS=${PLAYERS:-2000}
SOLVES=${SOLVES:-$((PLAYERS * 20))}
ATTEMPTS=${ATTEMPTS:-$((PLAYERS * 200))}
KEYS=${KEYS:-$((PLAYERS < 1000 ? PLAYERS : 1000))}
RUNS=${RUNS:-1}
PORT=${PORT:-18080}
BASELINE_PORT=${BASELINE_PORT:-18089}
SERVER=${FLAGSHIP_BENCH_PG:-}
. scripts/loadlib.sh # stop, cleanup, the event's other knobs, HOST

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }

work=$(mktemp -d /tmp/flagship-submitbench.XXXXXX)
pids=()
dbname=""
trap cleanup EXIT
trap 'exit 130' INT TERM

go build -o "$work/flagship" ./cmd/flagship
go build -o "$work/baseline" ./cmd/baseline
go build -o "$work/loadtool" ./cmd/loadtool
"$work/baseline" --addr "$HOST:$BASELINE_PORT" &
pids+=($!)

synth() { # DSN PREFIX
	"$work/flagship" --db "$1" synth --players "$PLAYERS" --challenges "$CHALLENGES" --solves "$SOLVES" --attempts "$ATTEMPTS" \
		--seed "$SEED" --keys "$KEYS" --keys-out "$work/$2-keys.txt" --targets-out "$work/$2-targets.txt" | tail -1
}

bench() { # NAME DSN PREFIX
	local name=$1 dsn=$2 prefix=$3
	FLAGSHIP_LOG_LEVEL=warn "$work/flagship" --db "$dsn" serve --addr "$HOST:$PORT" >"$work/serve.log" 2>&1 &
	local sp=$!
	pids+=($sp)
	for _ in $(seq 1 300); do curl -fsS -o /dev/null "http://$HOST:$PORT/api/public/health" 2>/dev/null && break; sleep 0.1; done
	for run in $(seq 1 "$RUNS"); do
		# A run sends each (player, challenge) pair up to about 7 wrong flags:
		# the next waits for the rate limit's minute to pass.
		if [ "$run" -gt 1 ]; then sleep 61; fi
		local c0 c1 out n
		c0=$(awk '{print $14+$15}' "/proc/$sp/stat")
		out=$(wrk -t2 -c"$CONNS" -d"$DURATION" --latency --timeout 10s -s scripts/submit_wrong.lua "http://$HOST:$PORT" -- "$work/$prefix-targets.txt")
		c1=$(awk '{print $14+$15}' "/proc/$sp/stat")
		n=$(echo "$out" | awk '/^status 400:/ {print $3}')
		printf '%-10s run %d: %8s req/s  p99 %-9s %6s × 400, others: %s; server CPU %d µs/request; load %s\n' "$name" "$run" \
			"$(echo "$out" | awk '/^Requests\/sec/ {print $2}')" "$(echo "$out" | awk '$1 == "99%" {print $2}')" "$n" \
			"$(echo "$out" | grep '^status' | grep -v '^status 400' | tr '\n' ' ' || true)" \
			$(( (c1 - c0) * 1000000 / $(getconf CLK_TCK) / ${n:-1} )) "$(cut -d' ' -f1 /proc/loadavg)"
		printf '%-10s run %d: %8s req/s  (40-byte body from memory, wrk -t1 -c64)\n' baseline "$run" \
			"$(wrk -t1 -c64 -d"$DURATION" "http://$HOST:$BASELINE_PORT/" | awk '/^Requests\/sec/ {print $2}')"
	done
	stop "$sp"
}

echo "== $(nproc) cores, $(go version | cut -d' ' -f3), $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2), $PLAYERS players"
synth "sqlite:$work/event.db" sqlite
bench SQLite "sqlite:$work/event.db" sqlite
if [ -n "$SERVER" ]; then
	read -r dbname pgdsn < <("$work/loadtool" createdb --server "$SERVER" --owner $$)
	synth "$pgdsn" pg
	bench PostgreSQL "$pgdsn" pg
fi
