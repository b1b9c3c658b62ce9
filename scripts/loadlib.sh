# Shared by the load scripts (loadtest.sh, loadtest-replicas.sh, rush.sh, submitbench.sh):
# sourced from the repository's root, never run.

# The synthetic event's size and seed, from the environment; the defaults
# are the bar (flagship synth's).
PLAYERS=${PLAYERS:-10000}
CHALLENGES=${CHALLENGES:-200}
SOLVES=${SOLVES:-200000}
ATTEMPTS=${ATTEMPTS:-2000000}
KEYS=${KEYS:-1000}
SEED=${SEED:-1}
DYNAMIC=${DYNAMIC:-} # non-empty: every challenge dynamic (flagship synth --dynamic)
HOST=127.0.0.1 # loopback only, always

# stop PID ends a process the script started, by its id: politely, then,
# after ten seconds, not.
stop() {
	local pid=$1
	kill "$pid" 2>/dev/null || return 0
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
}

# cleanup is the EXIT trap of a script that keeps the processes it started
# in pids, its PostgreSQL database's name (if any) in dbname, dropped with
# $work/loadtool, and its files in $work.
cleanup() {
	local pid
	for pid in "${pids[@]}"; do stop "$pid"; done
	if [ -n "$dbname" ]; then
		"$work/loadtool" dropdb --server "$SERVER" "$dbname" && echo "== dropped database $dbname" ||
			echo "!! could not drop database $dbname: drop it by hand" >&2
	fi
	rm -rf "$work"
}
