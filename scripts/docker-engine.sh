#!/usr/bin/env bash
# Makes a Docker engine answer on this machine, for the instances' tests and
# for running per-player instances: installs Debian's engine (docker.io) if
# dockerd is missing, starts dockerd in the background when `docker info`
# fails, waits for it, and makes the engine a one-node swarm manager so the
# swarm engine can be tested too. Idempotent: run it as often as you like.
#
#	DOCKER_ENGINE_LOG  where dockerd writes (default /var/log/dockerd.log)
#	DOCKER_ENGINE_WAIT seconds to wait for the engine (default 60)
#
# No registry is reachable here: nothing is pulled; tests build their images
# FROM scratch.
set -euo pipefail

log=${DOCKER_ENGINE_LOG:-/var/log/dockerd.log}
wait_s=${DOCKER_ENGINE_WAIT:-60}

if ! command -v dockerd >/dev/null; then
	apt-get update
	apt-get install -y docker.io
fi

if ! docker info >/dev/null 2>&1; then
	echo "docker-engine: starting dockerd (log: $log)"
	# setsid: the daemon outlives this script and the shell that ran it.
	setsid dockerd >>"$log" 2>&1 </dev/null &
	for _ in $(seq "$wait_s"); do
		docker info >/dev/null 2>&1 && break
		sleep 1
	done
	if ! docker info >/dev/null 2>&1; then
		echo "docker-engine: dockerd did not answer in ${wait_s}s; its log ends:" >&2
		tail -n 30 "$log" >&2 || true
		exit 1
	fi
fi

# A one-node swarm: the swarm engine's tests run services on it. The
# advertise address is the loopback, as this machine's only address known to
# be stable.
if [ "$(docker info --format '{{.Swarm.ControlAvailable}}')" != "true" ]; then
	docker swarm init --advertise-addr 127.0.0.1 >/dev/null
fi

docker version --format 'docker-engine: engine {{.Server.Version}}, API {{.Server.APIVersion}}'
docker info --format 'docker-engine: swarm {{.Swarm.LocalNodeState}}, node {{.Name}}, storage {{.Driver}}, cgroup v{{.CgroupVersion}}'
