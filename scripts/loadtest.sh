#!/usr/bin/env bash
# Whole-server load test on loopback, bounded in time (about 3 minutes):
# builds flagship, generates the synthetic event (10,000 players, 200
# challenges, 200,000 solves, 2,000,000 wrong attempts) with API keys into
# a temporary directory, starts `flagship serve` on 127.0.0.1, and runs wrk
# against it: the anonymous leaderboard (plain and gzip), the anonymous
# and the authenticated challenge list (rotating the keys of 1,000
# players; plain and gzip), wrong submissions (rotating players and
# challenges), /health, and a baseline Go server writing a fixed 40-byte
# body. Everything it started is stopped and the directory removed at the
# end.
#
#   scripts/loadtest.sh                 # the full-size event
#   PLAYERS=1000 SOLVES=20000 ATTEMPTS=200000 DURATION=5s scripts/loadtest.sh
#
# Knobs (environment): DURATION (10s), THREADS (2), CONNS (64), PORT
# (18080), BASELINE_PORT (18089), PLAYERS, CHALLENGES, SOLVES, ATTEMPTS,
# KEYS (1000), SEED (1), RATE_LIMIT (10: the server's default; the
# submission rotation never reaches it). Figures are in docs/performance.md.
# On PostgreSQL, with one replica and with two: scripts/loadtest-replicas.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/loadlib.sh # stop, the event's knobs, HOST

DURATION=${DURATION:-10s}
THREADS=${THREADS:-2}
CONNS=${CONNS:-64}
PORT=${PORT:-18080}
BASELINE_PORT=${BASELINE_PORT:-18089}
RATE_LIMIT=${RATE_LIMIT:-10}

if ! command -v wrk >/dev/null; then
	echo "== installing wrk (Debian package)"
	apt-get update -qq && apt-get install -y -qq wrk >/dev/null
fi
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }

work=$(mktemp -d /tmp/flagship-loadtest.XXXXXX)
server_pid=""
baseline_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then stop "$server_pid"; fi
	if [ -n "$baseline_pid" ]; then stop "$baseline_pid"; fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | cut -d' ' -f3-), $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
echo "== build"
go build -o "$work/flagship" ./cmd/flagship
go build -o "$work/baseline" ./cmd/baseline

echo "== synthetic event"
"$work/flagship" --db "sqlite:$work/event.db" synth --players "$PLAYERS" --challenges "$CHALLENGES" \
	--solves "$SOLVES" --attempts "$ATTEMPTS" --seed "$SEED" --keys "$KEYS" \
	--keys-out "$work/keys.txt" --targets-out "$work/targets.txt"
echo "database: $(du -h "$work/event.db" | cut -f1)"

echo "== start the server (--rate-limit $RATE_LIMIT, log level warn: no line per request)"
start_ns=$(date +%s%N)
FLAGSHIP_LOG_LEVEL=warn "$work/flagship" --db "sqlite:$work/event.db" serve --addr "$HOST:$PORT" \
	--rate-limit "$RATE_LIMIT" >"$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 600); do
	curl -fsS -o /dev/null "http://$HOST:$PORT/api/public/health" 2>/dev/null && break
	kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log"; exit 1; }
	sleep 0.1
done
ready_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
rss() { awk '/VmRSS/ {printf "%.0f MB", $2/1024}' "/proc/$server_pid/status"; }
echo "ready in ${ready_ms} ms (process start to first healthy answer); resident memory $(rss)"

"$work/baseline" --addr "$HOST:$BASELINE_PORT" &
baseline_pid=$!
for _ in $(seq 1 50); do curl -fsS -o /dev/null "http://$HOST:$BASELINE_PORT/" 2>/dev/null && break; sleep 0.1; done

base="http://$HOST:$PORT"
size() { curl -fsS -o /dev/null -w '%{size_download}' "$@"; }
key1=$(head -1 "$work/keys.txt")
echo "== body sizes (bytes)"
echo "leaderboard: $(size "$base/api/public/leaderboard") plain, $(size -H 'Accept-Encoding: gzip' "$base/api/public/leaderboard") gzip"
echo "challenges (anonymous): $(size "$base/api/public/challenges") plain, $(size -H 'Accept-Encoding: gzip' "$base/api/public/challenges") gzip"
echo "challenges (a player): $(size -H "Authorization: Bearer $key1" "$base/api/public/challenges") plain, $(size -H "Authorization: Bearer $key1" -H 'Accept-Encoding: gzip' "$base/api/public/challenges") gzip"

summary="$work/summary.txt"
: >"$summary"
run() {
	local name=$1
	shift
	echo
	echo "== $name: wrk $*"
	wrk --latency --timeout 10s "$@" | tee "$work/out.txt"
	local rps p50 p99 errs
	rps=$(awk '/^Requests\/sec/ {print $2}' "$work/out.txt")
	p50=$(awk '$1 == "50%" {print $2}' "$work/out.txt")
	p99=$(awk '$1 == "99%" {print $2}' "$work/out.txt")
	errs=$(awk '/Non-2xx/ {print $5}' "$work/out.txt")
	printf '%-34s %12s req/s   p50 %-9s p99 %-9s %s\n' "$name" "$rps" "$p50" "$p99" "${errs:+non-2xx: $errs}" >>"$summary"
}
W="-t$THREADS -c$CONNS -d$DURATION"

run "baseline 40 B (wrk -t1 -c64)" -t1 -c64 -d"$DURATION" "http://$HOST:$BASELINE_PORT/"
run "baseline 40 B" $W "http://$HOST:$BASELINE_PORT/"
run "health" $W "$base/api/public/health"
run "leaderboard, anonymous" $W "$base/api/public/leaderboard"
run "leaderboard, anonymous, gzip" $W -H "Accept-Encoding: gzip" "$base/api/public/leaderboard"
run "challenges, anonymous" $W "$base/api/public/challenges"
run "challenges, anonymous, gzip" $W -H "Accept-Encoding: gzip" "$base/api/public/challenges"
run "challenges, $KEYS rotating keys" $W -s scripts/challenges_auth.lua "$base" -- "$work/keys.txt"
run "challenges, $KEYS rotating keys, gzip" $W -s scripts/challenges_auth.lua "$base" -- "$work/keys.txt" gzip
run "wrong submissions, rotating" $W -s scripts/submit_wrong.lua "$base" -- "$work/targets.txt"

echo
echo "== server resident memory after the runs: $(rss)"
echo "== summary ($W; non-2xx is expected only for wrong submissions, which are 400s)"
cat "$summary"
