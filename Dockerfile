# syntax=docker/dockerfile:1
#
# Flagship: one static binary in a distroless, non-root image.
#
# UNTESTED HERE: this project's build machine has no container engine, so this
# file has been reviewed but never built or run. Report any failure in an issue.
#
#   docker build -t flagship .
#   docker run --rm -p 8080:8080 -v flagship-data:/data flagship serve --demo
#
# See docs/deploy.md and deploy/compose.yaml (PostgreSQL, two replicas, Caddy).

# ---- build ------------------------------------------------------------------
# go.mod asks for Go >= 1.26.8 and the golang images set GOTOOLCHAIN=local: if
# the build says "go.mod requires go >= …", pull a fresh base (docker build --pull).
FROM golang:1.26-bookworm AS build
WORKDIR /src

# Modules in their own layer: re-downloaded only when go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download && go mod verify

COPY . .
# Pure Go (modernc.org/sqlite, no cgo): a static binary that needs no libc.
# The cache mount only speeds up rebuilds; it is not part of the image.
RUN --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/flagship ./cmd/flagship \
 && mkdir -p /out/data

# ---- run --------------------------------------------------------------------
# distroless/static rather than scratch: same size class (~2 MB, no shell, no
# package manager), but it ships what scratch lacks and a Go server may need:
# CA certificates (PostgreSQL with sslmode=verify-full), /etc/passwd with the
# "nonroot" user (uid/gid 65532), a world-writable /tmp and tzdata; and it is
# rebuilt by Google when Debian publishes fixes.
FROM gcr.io/distroless/static-debian12:nonroot

COPY --from=build /out/flagship /flagship
# /data holds the default SQLite file (and its -wal/-shm beside it), so it must
# belong to the non-root user: distroless has no shell to chown it at run time.
# A named volume mounted here starts with this ownership; a bind-mounted host
# directory must be made writable by uid 65532 (chown 65532:65532 DIR).
COPY --from=build --chown=65532:65532 /out/data /data
WORKDIR /data
VOLUME ["/data"]
USER 65532:65532

# Listen on every interface inside the container (the binary's own default,
# 127.0.0.1, would be unreachable from outside). Override FLAGSHIP_DB with a
# postgres://… DSN to run several replicas; see docs/deploy.md.
ENV FLAGSHIP_ADDR=0.0.0.0:8080 \
    FLAGSHIP_DB=sqlite:/data/flagship.db
EXPOSE 8080

# No HEALTHCHECK: the image has no shell, curl or wget, and the binary has no
# probe command. Orchestrators should probe GET /api/public/health over HTTP
# (200 {"ok":true}; 503 {"ok":false} when the database does not answer in 1 s):
# a Kubernetes httpGet probe, a load balancer's health check, Caddy's health_uri.
ENTRYPOINT ["/flagship"]
CMD ["serve"]
