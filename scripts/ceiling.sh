#!/usr/bin/env bash
# The anonymous challenge list and leaderboard against their ceiling: the
# demo event served by `flagship serve` as operators run it (log level
# info, one line per request to a file, metrics on), and cmd/baseline
# answering the same bytes and headers from memory, under
# `wrk -t1 -c64` on loopback, interleaved (baseline, each flagship, baseline)
# for ROUNDS rounds. Prints req/s, the server's CPU time per request (user
# and system, from /proc: steadier than req/s on a machine others use too)
# and the 1-minute load average before and after each group. Figures are
# in docs/performance.md ("Access log and metrics per request").
#
#   scripts/ceiling.sh                         # this tree's flagship
#   scripts/ceiling.sh /tmp/old/flagship ...   # other builds first, same run
#   ACCESS_LOG=off scripts/ceiling.sh          # serve --access-log=false
#
# Knobs: DURATION (10s), ROUNDS (2), PORT (18200). 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-2}
PORT=${PORT:-18200}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

work=$(mktemp -d /tmp/flagship-ceiling.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
go build -o "$work/flagship" ./cmd/flagship
go build -o "$work/baseline" ./cmd/baseline
bins=("$@" "$work/flagship")

wait_up() { for _ in $(seq 1 100); do curl -fsS -o /dev/null "$1" 2>/dev/null && return; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }

# One demo database for every server: its ids are made at import, and the
# baselines answer its bytes.
"$work/flagship" --db "sqlite:$work/demo.db" serve --demo --addr "127.0.0.1:$PORT" >/dev/null 2>&1 &
p=$!
wait_up "http://127.0.0.1:$PORT/livez"
for what in challenges leaderboard; do
	curl -fsS -D "$work/$what.hdr" -o "$work/$what.json" "http://127.0.0.1:$PORT/api/public/$what"
done
kill "$p"; wait "$p" 2>/dev/null || true

declare -A base bpid
bport=$((PORT + 50))
for what in challenges leaderboard; do
	args=()
	while IFS= read -r line; do
		line=${line%$'\r'}
		case "${line%%:*}" in Access-Control-*|Cache-Control|Content-Type|Etag|Vary) args+=(--header "$line") ;; esac
	done <"$work/$what.hdr"
	"$work/baseline" --addr "127.0.0.1:$bport" --body "$work/$what.json" "${args[@]}" &
	pids+=($!)
	bpid[$what]=$!
	base[$what]="http://127.0.0.1:$bport/api/public/$what"
	bport=$((bport + 1))
done
urls=()
spids=()
i=0
for bin in "${bins[@]}"; do
	i=$((i + 1))
	cp "$work/demo.db" "$work/s$i.db"
	FLAGSHIP_ACCESS_LOG=${ACCESS_LOG:-on} "$bin" --db "sqlite:$work/s$i.db" serve --addr "127.0.0.1:$((PORT + i))" \
		--metrics-addr "127.0.0.1:$((PORT + 100 + i))" >/dev/null 2>"$work/s$i.log" &
	pids+=($!)
	spids+=($!)
	urls+=("http://127.0.0.1:$((PORT + i))")
	wait_up "http://127.0.0.1:$((PORT + i))/livez"
done
for what in challenges leaderboard; do
	wait_up "${base[$what]}"
	for u in "${urls[@]}"; do
		cmp -s <(curl -fsS "$u/api/public/$what") "$work/$what.json" || { echo "$u/api/public/$what: not the baseline's bytes" >&2; exit 1; }
	done
done

# cpu PID: the process's user and system time so far, in clock ticks.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# run URL PID: req/s, and the server's CPU µs per request.
run() {
	local before out
	before=$(cpu "$2")
	out=$(wrk -t1 -c64 -d"$DURATION" "$1")
	awk -v ticks=$(($(cpu "$2") - before)) -v hz="$(getconf CLK_TCK)" '
		/ requests in / {n = $1} /Requests\/sec/ {rps = $2}
		END {printf "%.0f (%.1f µs)", rps, ticks / hz * 1e6 / n}' <<<"$out"
}
load() { cut -d' ' -f1 /proc/loadavg; }
echo "== $(nproc) cores, wrk -t1 -c64 -d$DURATION, req/s (server CPU per request)"
for i in "${!bins[@]}"; do echo "   :$((PORT + i + 1)) ${bins[$i]}"; done
for r in $(seq 1 "$ROUNDS"); do
	for what in challenges leaderboard; do
		line="round $r $what: load $(load); baseline $(run "${base[$what]}" "${bpid[$what]}")"
		for k in "${!urls[@]}"; do line="$line; :${urls[$k]##*:} $(run "${urls[$k]}/api/public/$what" "${spids[$k]}")"; done
		echo "$line; baseline $(run "${base[$what]}" "${bpid[$what]}"); load $(load)"
	done
done
echo "== access log lines written: $(cat "$work"/s*.log | grep -c 'msg=request' || true)"
