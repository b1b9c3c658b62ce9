#!/usr/bin/env bash
# Whole-server load test on PostgreSQL, one replica and then two, on
# loopback, bounded in time (about 3 minutes at full size):
#
#   scripts/loadtest-replicas.sh 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
#   PLAYERS=1000 SOLVES=20000 ATTEMPTS=200000 DURATION=5s scripts/loadtest-replicas.sh URL
#
# The URL (or FLAGSHIP_BENCH_DB) names a PostgreSQL server on which the role
# may create databases; its options (pool_max_conns, statement_timeout, …)
# go to the replicas. The script
#  1. builds flagship and cmd/loadtool, creates a fresh database
#     (flagship_bench_p<this script's pid>_<random>), and generates the
#     synthetic event in it with `flagship synth` (binary COPY), with API
#     keys and submission targets;
#  2. starts ONE replica (`flagship serve`, log level warn) and runs wrk
#     (-t2 -c64) on /health, the leaderboard with gzip, the authenticated
#     challenge list (rotating keys; plain and gzip) and wrong submissions;
#  3. starts a SECOND replica on the next port, measures how long a solve
#     acknowledged by replica 1 takes to show on replica 2 (loadtool
#     visibility: 20 solves, replica 2 polled every 5 ms), and runs the same
#     loads on both at once: two wrk processes started together, one per
#     replica, each -t1 -c32 (the same 2 threads and 64 connections in
#     all), and adds their req/s;
#  4. checks that both replicas then serve the same leaderboard and the
#     same challenge list (the wrong submissions' attemptsCount included);
#  5. stops the replicas and drops the database (also on failure or ^C).
#
# Why two wrk processes and not a proxy: wrk targets one host, and a proxy
# (a Go httputil.ReverseProxy here, Caddy in deploy/compose.yaml) would be a
# third process copying every response on these two cores — at 2.4 MB per
# gzip leaderboard it would measure itself. Two wrk processes measure each
# replica as it is and their sum is what the pair served.
#
# Knobs (environment): DURATION (10s), PORT (18080; the second replica
# PORT+1), PLAYERS, CHALLENGES, SOLVES, ATTEMPTS, KEYS (1000), SEED (1),
# RATE_LIMIT (10, the default), SOLVES_VISIBLE (20), POLL (5ms).
# Figures are in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/loadlib.sh # stop, cleanup, the event's knobs, HOST

SERVER=${1:-${FLAGSHIP_BENCH_DB:-}}
case "$SERVER" in
postgres://* | postgresql://*) ;;
*)
	echo "usage: $0 postgres://USER@HOST:PORT/DB?sslmode=disable   (or set FLAGSHIP_BENCH_DB)" >&2
	exit 2
	;;
esac
DURATION=${DURATION:-10s}
PORT=${PORT:-18080}
PORT2=$((PORT + 1))
RATE_LIMIT=${RATE_LIMIT:-10}
SOLVES_VISIBLE=${SOLVES_VISIBLE:-20}
POLL=${POLL:-5ms}

if ! command -v wrk >/dev/null; then
	echo "== installing wrk (Debian package)"
	apt-get update -qq && apt-get install -y -qq wrk >/dev/null
fi
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }

work=$(mktemp -d /tmp/flagship-loadtest-replicas.XXXXXX)
pids=()
dbname=""
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | cut -d' ' -f3-), $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== build"
go build -o "$work/flagship" ./cmd/flagship
go build -o "$work/loadtool" ./cmd/loadtool

echo "== fresh database"
read -r dbname dsn < <("$work/loadtool" createdb --server "$SERVER" --owner $$)
[ -n "$dbname" ] || exit 1
echo "database $dbname"

echo "== synthetic event (flagship synth: binary COPY)"
timeout 900 "$work/flagship" --db "$dsn" synth --players "$PLAYERS" --challenges "$CHALLENGES" \
	--solves "$SOLVES" --attempts "$ATTEMPTS" --seed "$SEED" --keys "$KEYS" \
	--keys-out "$work/keys.txt" --targets-out "$work/targets.txt"

# start_replica N PORT: starts a replica, waits for its first healthy answer.
start_replica() {
	local n=$1 port=$2 start_ns pid
	start_ns=$(date +%s%N)
	FLAGSHIP_LOG_LEVEL=warn "$work/flagship" --db "$dsn" serve --addr "$HOST:$port" \
		--rate-limit "$RATE_LIMIT" >"$work/serve$n.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	eval "pid$n=$pid"
	for _ in $(seq 1 600); do
		curl -fsS -o /dev/null "http://$HOST:$port/api/public/health" 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || { cat "$work/serve$n.log"; exit 1; }
		sleep 0.1
	done
	curl -fsS -o /dev/null "http://$HOST:$port/api/public/health"
	echo "replica $n on $HOST:$port: ready in $((($(date +%s%N) - start_ns) / 1000000)) ms (process start to first healthy answer); resident memory $(rss "$pid")"
}
rss() { awk '/VmRSS/ {printf "%.0f MB", $2/1024}' "/proc/$1/status"; }

r1="http://$HOST:$PORT"
r2="http://$HOST:$PORT2"
summary="$work/summary.txt"
: >"$summary"

# wrk_one NAME OUT ARGS...: one wrk, output kept in OUT; checks its statuses.
wrk_one() {
	local out=$1
	shift
	wrk --latency --timeout 10s "$@" >"$out" 2>&1 || { cat "$out"; exit 1; }
}
field() { # field FILE rps|p50|p99|non2xx|transfer
	case $2 in
	rps) awk '/^Requests\/sec/ {print $2}' "$1" ;;
	p50) awk '$1 == "50%" {print $2}' "$1" ;;
	p99) awk '$1 == "99%" {print $2}' "$1" ;;
	non2xx) awk '/Non-2xx/ {n = $5} END {print n + 0}' "$1" ;;
	transfer) awk '/^Transfer\/sec/ {print $2}' "$1" ;;
	esac
}
# statuses FILE: the status counts the submit script printed, e.g. "400×9812".
statuses() { awk '/^status [0-9]+:/ {sub(":", "", $2); printf "%s%s×%s", sep, $2, $3; sep=" "}' "$1"; }

# run1 NAME PATH-OR-SCRIPT ARGS: the load on replica 1 alone, wrk -t2 -c64.
run1() {
	local name=$1
	shift
	echo
	echo "== 1 replica: $name"
	wrk_one "$work/out.txt" -t2 -c64 -d"$DURATION" "$@"
	cat "$work/out.txt"
	# The submit script counts statuses; for the others, wrk's non-2xx.
	local st n
	st=$(statuses "$work/out.txt")
	n=$(field "$work/out.txt" non2xx)
	[ -z "$st" ] && [ "$n" != 0 ] && st="non-2xx: $n"
	printf '%-40s %10s req/s   p50 %-9s p99 %-9s %-10s %s\n' "$name" "$(field "$work/out.txt" rps)" \
		"$(field "$work/out.txt" p50)" "$(field "$work/out.txt" p99)" "$(field "$work/out.txt" transfer)/s" "$st" >>"$summary"
}

# run2 NAME URL-SUFFIX -- ARGS-BEFORE-URL -- SCRIPT-ARGS: the same load on
# both replicas at once, one wrk -t1 -c32 each; req/s added up. The Lua
# scripts get part=K/2 so the two start at different places of their
# rotations.
run2() {
	local name=$1 suffix=$2
	shift 2
	local pre=() post=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do pre+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	post=("$@")
	echo
	echo "== 2 replicas: $name"
	local k url a b
	for k in 0 1; do
		url=$r1
		[ $k = 1 ] && url=$r2
		if [ ${#post[@]} -gt 0 ]; then
			wrk_one "$work/out$k.txt" -t1 -c32 -d"$DURATION" "${pre[@]}" "$url$suffix" -- "${post[@]}" "part=$k/2" &
		else
			wrk_one "$work/out$k.txt" -t1 -c32 -d"$DURATION" "${pre[@]}" "$url$suffix" &
		fi
		eval "w$k=$!"
	done
	wait "$w0" || exit 1
	wait "$w1" || exit 1
	a=$work/out0.txt b=$work/out1.txt
	echo "-- replica 1:"; cat "$a"
	echo "-- replica 2:"; cat "$b"
	local sum st
	sum=$(awk -v x="$(field "$a" rps)" -v y="$(field "$b" rps)" 'BEGIN {printf "%.2f", x + y}')
	st="$(statuses "$a")"
	if [ -n "$st" ]; then
		st="$st + $(statuses "$b")"
	elif grep -q Non-2xx "$a" "$b"; then
		st="non-2xx: $(field "$a" non2xx) + $(field "$b" non2xx)"
	fi
	printf '%-40s %10s req/s   p50 %s / %s   p99 %s / %s   (%s + %s; %s/s + %s/s)  %s\n' "$name" "$sum" \
		"$(field "$a" p50)" "$(field "$b" p50)" "$(field "$a" p99)" "$(field "$b" p99)" \
		"$(field "$a" rps)" "$(field "$b" rps)" "$(field "$a" transfer)" "$(field "$b" transfer)" "$st" >>"$summary"
}

# check_wrong FILE...: every wrong submission must have been a 400.
check_wrong() {
	local f
	for f in "$@"; do
		if grep -E '^status [0-9]+:' "$f" | grep -vq '^status 400:'; then
			echo "!! wrong submissions got another status than 400:" >&2
			grep -E '^status' "$f" >&2
			exit 1
		fi
	done
}
# check_ok FILE...: every answer of a read load must have been a 200.
check_ok() {
	local f
	for f in "$@"; do
		if grep -q 'Non-2xx' "$f"; then
			echo "!! a read got another status than 200: $f" >&2
			exit 1
		fi
	done
}

echo
echo "== replica 1"
start_replica 1 "$PORT"
key1=$(head -1 "$work/keys.txt")
size() { curl -fsS -o /dev/null -w '%{size_download}' "$@"; }
echo "body sizes: leaderboard $(size -H 'Accept-Encoding: gzip' "$r1/api/public/leaderboard") B gzip;" \
	"a player's challenge list $(size -H "Authorization: Bearer $key1" "$r1/api/public/challenges") B plain," \
	"$(size -H "Authorization: Bearer $key1" -H 'Accept-Encoding: gzip' "$r1/api/public/challenges") B gzip"

echo "-- 1 replica (wrk -t2 -c64 -d$DURATION; statuses counted by submit_wrong.lua)" >>"$summary"
# /health answers 503 when the database does not answer within a second,
# waiting for a pool connection included: counted, not fatal.
run1 "health (PostgreSQL SELECT 1)" "$r1/api/public/health"
run1 "leaderboard, gzip" -H "Accept-Encoding: gzip" "$r1/api/public/leaderboard"; check_ok "$work/out.txt"
run1 "challenges, $KEYS rotating keys" -s scripts/challenges_auth.lua "$r1" -- "$work/keys.txt"; check_ok "$work/out.txt"
run1 "challenges, $KEYS rotating keys, gzip" -s scripts/challenges_auth.lua "$r1" -- "$work/keys.txt" gzip; check_ok "$work/out.txt"
run1 "wrong submissions, rotating" -s scripts/submit_wrong.lua "$r1" -- "$work/targets.txt"; check_wrong "$work/out.txt"
echo "replica 1 resident memory after the runs: $(rss "$pid1")"

echo
echo "== replica 2"
start_replica 2 "$PORT2"

echo
echo "== cross-replica visibility: solves on replica 1, replica 2 polled every $POLL"
timeout 300 "$work/loadtool" visibility --write "$r1" --read "$r2" --keys "$work/keys.txt" --n "$SOLVES_VISIBLE" \
	--interval "$POLL" --players "$PLAYERS" --challenges "$CHALLENGES" --solves "$SOLVES" --attempts "$ATTEMPTS" \
	--seed "$SEED" | tee "$work/visibility.txt"

echo "-- 2 replicas (two wrk -t1 -c32 -d$DURATION at once, one per replica; p50/p99 per replica; req/s per replica after the sum)" >>"$summary"
run2 "health (PostgreSQL SELECT 1)" /api/public/health
run2 "leaderboard, gzip" /api/public/leaderboard -H "Accept-Encoding: gzip"; check_ok "$work/out0.txt" "$work/out1.txt"
run2 "challenges, $KEYS rotating keys" "" -s scripts/challenges_auth.lua -- "$work/keys.txt"; check_ok "$work/out0.txt" "$work/out1.txt"
run2 "challenges, $KEYS rotating keys, gzip" "" -s scripts/challenges_auth.lua -- "$work/keys.txt" gzip; check_ok "$work/out0.txt" "$work/out1.txt"
run2 "wrong submissions, rotating" "" -s scripts/submit_wrong.lua -- "$work/targets.txt"; check_wrong "$work/out0.txt" "$work/out1.txt"

echo
echo "== do both replicas serve the same event? (after 2 s for the last catch-up)"
sleep 2
same=1
for path in /api/public/leaderboard /api/public/challenges; do
	h1=$(curl -fsS "$r1$path" | sha256sum | cut -c1-16)
	h2=$(curl -fsS "$r2$path" | sha256sum | cut -c1-16)
	if [ "$h1" = "$h2" ]; then
		echo "$path: identical (sha256 $h1…)"
	else
		echo "!! $path differs: replica 1 $h1…, replica 2 $h2…" >&2
		same=0
	fi
done
attempts=$(curl -fsS "$r1/api/public/challenges" | grep -o '"attemptsCount":[0-9]*' | awk -F: '{s += $2} END {print s}')
echo "sum of attemptsCount over the challenge list: $attempts"
echo "resident memory after the runs: replica 1 $(rss "$pid1"), replica 2 $(rss "$pid2")"
echo "database size: $("$work/loadtool" dbsize --server "$SERVER" "$dbname")"

echo
echo "== summary"
cat "$summary"
echo
tail -5 "$work/visibility.txt"
[ "$same" = 1 ] || exit 1
