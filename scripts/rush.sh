#!/usr/bin/env bash
# Issue 10's solve rush on loopback, bounded in time (about 3 minutes at
# full size): 64 readers of the leaderboard and the challenge list (gzip),
# first alone, then while correct flags arrive at 50 per second; read
# throughput and p99, the server's CPU, the solve-to-visible delay
# (cmd/loadtool rush).
#
#   scripts/rush.sh                    # SQLite, one server
#   scripts/rush.sh 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
#   REPLICAS=2 scripts/rush.sh 'postgres://…'   # solves on replica 1, both watched
#   PLAYERS=1000 SOLVES=20000 ATTEMPTS=200000 DURATION=10s scripts/rush.sh
#
# Knobs (environment): DURATION (30s per run), RATE (50 solves/s), CLIENTS
# (64), PORT (18080, the second replica PORT+1), REPLICAS (1; 2 needs
# PostgreSQL), PLAYERS, CHALLENGES, SOLVES, ATTEMPTS, KEYS (1000), SEED (1),
# DYNAMIC (non-empty: every challenge dynamic, issue 21).
# Everything it started is stopped, and the database dropped, at the end.
# Figures are in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/loadlib.sh # stop, cleanup, the event's knobs, HOST

SERVER=${1:-}
DURATION=${DURATION:-30s}
RATE=${RATE:-50}
CLIENTS=${CLIENTS:-64}
PORT=${PORT:-18080}
REPLICAS=${REPLICAS:-1}
case "$SERVER" in
"" | postgres://* | postgresql://*) ;;
*) echo "usage: $0 [postgres://USER@HOST:PORT/DB?sslmode=disable]" >&2; exit 2 ;;
esac
if [ "$REPLICAS" != 1 ] && [ -z "$SERVER" ]; then
	echo "REPLICAS=$REPLICAS needs PostgreSQL" >&2
	exit 2
fi
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }

work=$(mktemp -d /tmp/flagship-rush.XXXXXX)
pids=()
dbname=""
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== machine: $(nproc) cores, $(go version | cut -d' ' -f3-); load average $(cut -d' ' -f1-3 /proc/loadavg)"
go build -o "$work/flagship" ./cmd/flagship
go build -o "$work/loadtool" ./cmd/loadtool
if [ -n "$SERVER" ]; then
	read -r dbname dsn < <("$work/loadtool" createdb --server "$SERVER" --owner $$)
	[ -n "$dbname" ] || exit 1
else
	dsn="sqlite:$work/event.db"
fi
echo "== synthetic event in $dsn"
timeout 900 "$work/flagship" --db "$dsn" synth --players "$PLAYERS" --challenges "$CHALLENGES" \
	--solves "$SOLVES" --attempts "$ATTEMPTS" --seed "$SEED" --keys "$KEYS" --keys-out "$work/keys.txt" ${DYNAMIC:+--dynamic}

urls=() servers=()
for n in $(seq 1 "$REPLICAS"); do
	port=$((PORT + n - 1))
	FLAGSHIP_LOG_LEVEL=warn "$work/flagship" --db "$dsn" serve --addr "$HOST:$port" >"$work/serve$n.log" 2>&1 &
	pids+=("$!")
	servers+=("$!")
	urls+=("http://$HOST:$port")
	for _ in $(seq 1 600); do
		curl -fsS -o /dev/null "http://$HOST:$port/api/public/health" 2>/dev/null && break
		kill -0 "${pids[-1]}" 2>/dev/null || { cat "$work/serve$n.log"; exit 1; }
		sleep 0.1
	done
	curl -fsS -o /dev/null -H 'Accept-Encoding: gzip' "http://$HOST:$port/api/public/leaderboard"
done
watch=$(IFS=,; echo "${urls[*]}")
pidlist=$(IFS=,; echo "${servers[*]}")
rush() {
	timeout 900 "$work/loadtool" rush --url "${urls[0]}" --watch "$watch" --pid "$pidlist" --keys "$work/keys.txt" \
		--clients "$CLIENTS" --duration "$DURATION" --players "$PLAYERS" --challenges "$CHALLENGES" \
		--solves "$SOLVES" --attempts "$ATTEMPTS" --seed "$SEED" "$@"
}
echo
echo "== reads only"
rush --rate 0
echo
echo "== reads and $RATE solves per second"
rush --rate "$RATE"
