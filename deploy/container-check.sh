#!/usr/bin/env bash
# Builds the Dockerfile's image with podman and runs it, on a machine with no container registry
# access and no Docker engine (how the README's "What is tested here" figures were made):
#
#   1. a stand-in for node:20-bookworm-slim: Debian bookworm from mmdebstrap (--variant=minbase),
#      this machine's Node 20 and npm, the `node` user (uid 1000) and this machine's CA bundle;
#   2. `podman build --isolation chroot` of the repository's Dockerfile on that base;
#   3. the image's command run with `buildah run --isolation chroot` (podman run needs a runtime
#      allowed to set rlimits and cgroups, which our sandbox is not), against the emulator on a
#      loopback port: /health, a query, then SIGTERM to the node process (what a container runtime
#      sends to PID 1), which must end the run with status 0.
#
# Needs root and the Debian packages podman, buildah and mmdebstrap. Takes 5 to 15 minutes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=$(mktemp -d)
emulator_pid='' container=''
cleanup() {
  [[ -n $emulator_pid ]] && kill "$emulator_pid" 2>/dev/null || true
  [[ -n $container ]] && buildah rm "$container" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

if ! podman image exists localhost/node:20-bookworm-slim; then
  mmdebstrap --variant=minbase --include=ca-certificates bookworm "$work/base.tar" http://deb.debian.org/debian
  podman import "$work/base.tar" localhost/chatgraph-debian-minbase:bookworm
  mkdir "$work/ctx"
  cp "$(command -v node)" "$work/ctx/node"
  cp -r "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$work/ctx/npm"
  cp /etc/ssl/certs/ca-certificates.crt "$work/ctx/ca-certificates.crt"
  cat > "$work/ctx/Containerfile" <<'CONTAINERFILE'
FROM localhost/chatgraph-debian-minbase:bookworm
COPY node /usr/bin/node
COPY npm /usr/lib/node_modules/npm
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/bin/npm \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
CONTAINERFILE
  podman build --isolation chroot --network host -t localhost/node:20-bookworm-slim "$work/ctx"
fi

podman build --format docker --isolation chroot --network host \
  --build-arg NODE_IMAGE=localhost/node:20-bookworm-slim -t localhost/chatgraph:check .
[[ $(podman image inspect --format '{{.Config.User}}' localhost/chatgraph:check) == node ]]
podman image inspect --format '{{json .Config.Healthcheck}}' localhost/chatgraph:check | grep -q /health

PORT=19991 node --import tsx src/emulator/main.ts > "$work/emulator.log" &
emulator_pid=$!
container=$(buildah from localhost/chatgraph:check)
buildah run --isolation chroot --env ZULIP_URL=http://127.0.0.1:19991 --env PORT=14000 --env HOST=127.0.0.1 \
  "$container" -- node dist/main.js > "$work/stdout" 2> "$work/stderr" &
run_pid=$!
for _ in $(seq 60); do curl -fs -m 1 http://127.0.0.1:14000/health >/dev/null && break; sleep 1; done
curl -fs http://127.0.0.1:14000/health
curl -fs http://127.0.0.1:14000/graphql -H 'content-type: application/json' \
  -u desdemona@zulip.example.com:BFaimL2OmQDJBFhRh57pJzky3qj-O8ul -d '{"query":"{ me { user { fullName } } }"}' | grep -q Desdemona
kill -TERM "$(pgrep -f '^/usr/bin/node dist/main.js')"
wait "$run_pid"
grep -q 'SIGTERM, shutting down' "$work/stderr"
if pgrep -f '^/usr/bin/node dist/main.js' >/dev/null; then echo 'container-check: node still running' >&2; exit 1; fi
echo 'container-check: built, ran as node, /health and a query answered, SIGTERM exited 0'
