#!/usr/bin/env bash
# npm run container:check — builds the image from the Dockerfile with podman and checks it for real:
#   1. embedded mode (the image alone, DATA_DIR on a named volume): ready, an m4a call uploaded and
#      COMPLETED, the image's HEALTHCHECK passing, SIGTERM stopping it within seconds (exit code 0);
#   2. against the machine's PostgreSQL (127.0.0.1:5432, a fresh database, metrics enabled with a
#      token): the same, plus the call's stage durations on /metrics.
# Slow (building the image, two calls through the recogniser): not part of `npm test`.
#
# On this project's machines no container registry is reachable: the base images are made from
# Debian's mirror (scripts/container-base.sh). Needs root for podman; installs podman, buildah,
# debootstrap and runc with apt-get when missing (scripts/bootstrap.sh --container), and sets podman's runtime settings these machines need
# (/etc/containers/containers.conf) when they are absent. Environment: IMAGE (default
# localhost/call-analysis:check), PGHOST_URL (default postgres://postgres@127.0.0.1:5432/postgres),
# STOP_LIMIT_SECONDS (default 10), KEEP=1 keeps the containers and volumes for inspection.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${IMAGE:-localhost/call-analysis:check}
ADMIN_URL=${PGHOST_URL:-postgres://postgres@127.0.0.1:5432/postgres}
STOP_LIMIT=${STOP_LIMIT_SECONDS:-10}
RUN_ID=cas-check-$$
started_at=$(date +%s)

say() { echo "container-check: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }

# ---- prerequisites ------------------------------------------------------------------------------
# podman, buildah, podman-compose, debootstrap, runc, curl, jq, psql (system packages only).
bash scripts/bootstrap.sh --container
conf=/etc/containers/containers.conf
if ! grep -q '^runtime *= *"runc"' "$conf" 2>/dev/null || ! grep -q '^default_ulimits' "$conf" 2>/dev/null; then
  [ "$(id -u)" = 0 ] || fail "$conf lacks runtime = \"runc\" and default_ulimits (see docs/deployment.md)"
  if [ -s "$conf" ]; then fail "$conf exists without runtime = \"runc\" and default_ulimits; add them (docs/deployment.md) and retry"; fi
  say "writing $conf (runc, nofile/nproc limits: the default runtime fails on these machines)"
  mkdir -p /etc/containers
  cat >"$conf" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
EOF
fi
bash scripts/container-base.sh

# A recording to upload: a rendered corpus call in m4a.
# On a clean clone it is rendered (flite, sox: bash scripts/bootstrap.sh --test; npm dependencies installed).
audio=$(ls .cache/corpus/dentist-appointment/call.m4a 2>/dev/null || true)
if [ -z "$audio" ]; then
  say "rendering a corpus call"
  # The corpus renderer runs on the host (tsx, flite, sox): a clean clone has neither yet.
  bash scripts/bootstrap.sh --test >&2
  audio=$(node --import tsx -e "import('node:path').then(async (p) => { const m = await import('./test/support/corpus.ts'); console.log(p.join(m.ensureCorpus(['dentist-appointment']), 'dentist-appointment', 'call.m4a')); })")
fi
[ -s "$audio" ] || fail "no corpus recording at $audio"

# ---- build --------------------------------------------------------------------------------------
build_args=(--format docker -t "$IMAGE")
# Networks that re-sign TLS: npm in the build trusts the host's bundle (see the Dockerfile).
[ -s /etc/ssl/certs/ca-certificates.crt ] && build_args+=(-v /etc/ssl/certs/ca-certificates.crt:/run/build-ca.crt:ro)
say "building $IMAGE"
build_log=$(mktemp)
if ! podman build "${build_args[@]}" . >"$build_log" 2>&1; then
  tail -40 "$build_log" >&2
  fail "podman build failed (log: $build_log)"
fi
rm -f "$build_log"
say "built $(podman image inspect --format '{{.Id}}' "$IMAGE" | cut -c1-12) ($(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%d MB", $1/1e6}')) in $(($(date +%s) - started_at)) s"
[ "$(podman image inspect --format '{{.Config.User}}' "$IMAGE")" = node ] || fail "the image does not run as the node user"

# ---- helpers ------------------------------------------------------------------------------------
containers=()
volumes=()
ext_db=
cleanup() {
  [ "${KEEP:-}" = 1 ] && { say "kept: ${containers[*]} ${volumes[*]} ${ext_db}"; return; }
  for c in "${containers[@]}"; do podman rm -f -t 0 "$c" >/dev/null 2>&1 || true; done
  for v in "${volumes[@]}"; do podman volume rm -f "$v" >/dev/null 2>&1 || true; done
  if [ -n "$ext_db" ]; then psql "$ADMIN_URL" -q -c "DROP DATABASE IF EXISTS \"$ext_db\" WITH (FORCE)" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

# Periodic health checks need systemd timers, which these machines lack: podman says so on every
# start and stop (harmless; `podman healthcheck run` works). Everything else passes through.
quiet() { grep -v 'systemd' || true; }

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

wait_ready() { # name base_url
  local deadline=$(($(date +%s) + 240))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "$2/health/ready")" = 200 ]; do
    if [ "$(podman inspect --format '{{.State.Running}}' "$1")" != true ]; then podman logs --tail 30 "$1" >&2; fail "$1 exited before it was ready"; fi
    [ "$(date +%s)" -lt "$deadline" ] || { podman logs --tail 30 "$1" >&2; fail "$1 not ready within 240 s"; }
    sleep 2
  done
}

upload_and_wait() { # name base_url -> prints the call id
  local r id status deadline=$(($(date +%s) + 600))
  r=$(curl -s -w '\n%{http_code}' -F "file=@$audio;type=audio/mp4" -F 'metadata={"title":"Container check"};type=application/json' "$2/api/calls/analyze")
  [ "$(tail -n1 <<<"$r")" = 202 ] || fail "$1: upload answered $(tail -n1 <<<"$r"): $(head -n1 <<<"$r")"
  id=$(head -n1 <<<"$r" | jq -r .callId)
  while :; do
    status=$(curl -s "$2/api/calls/$id" | jq -r .status)
    case "$status" in
      COMPLETED) break ;;
      FAILED) podman logs --tail 30 "$1" >&2; fail "$1: the call FAILED ($(curl -s "$2/api/calls/$id" | jq -c '{errorReason}'))" ;;
    esac
    [ "$(date +%s)" -lt "$deadline" ] || fail "$1: the call is still $status after 600 s"
    sleep 3
  done
  echo "$id"
}

stop_within_limit() { # name
  local t0 t1 code
  t0=$(date +%s.%N)
  podman stop -t 60 "$1" 2> >(quiet >&2) >/dev/null
  t1=$(date +%s.%N)
  code=$(podman inspect --format '{{.State.ExitCode}}' "$1")
  local took
  took=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')
  awk -v t="$took" -v l="$STOP_LIMIT" 'BEGIN{exit !(t <= l)}' || fail "$1: SIGTERM took ${took} s (limit ${STOP_LIMIT} s)"
  [ "$code" = 0 ] || { podman logs --tail 20 "$1" >&2; fail "$1: exit code $code after SIGTERM"; }
  echo "$took"
}

# ---- 1. embedded mode -----------------------------------------------------------------------------
name=$RUN_ID-embedded
port=$(free_port)
volumes+=("$name-data")
containers+=("$name")
say "embedded: starting $name on 127.0.0.1:$port"
podman run -d --name "$name" -p "127.0.0.1:$port:8080" -v "$name-data:/data" "$IMAGE" 2> >(quiet >&2) >/dev/null
wait_ready "$name" "http://127.0.0.1:$port"
ready_after=$(($(date +%s) - $(date -d "$(podman inspect --format '{{.State.StartedAt}}' "$name" | sed 's/ [A-Z]*$//')" +%s)))
call=$(upload_and_wait "$name" "http://127.0.0.1:$port")
podman healthcheck run "$name" >/dev/null || fail "$name: the image's HEALTHCHECK failed"
[ "$(podman exec "$name" id -un)" = node ] || fail "$name: not running as node"
took=$(stop_within_limit "$name")
say "embedded: ready after ~${ready_after} s, call $call COMPLETED, healthcheck ok, SIGTERM -> exit 0 in ${took} s"

# ---- 2. the machine's PostgreSQL ------------------------------------------------------------------
psql "$ADMIN_URL" -q -c 'SELECT 1' >/dev/null 2>&1 || fail "no PostgreSQL at $ADMIN_URL"
ext_db=cas_container_check_$$
psql "$ADMIN_URL" -q -c "CREATE DATABASE \"$ext_db\"" >/dev/null
db_url=${ADMIN_URL%/*}/$ext_db
name=$RUN_ID-external
port=$(free_port)
token=container-check-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
volumes+=("$name-data")
containers+=("$name")
say "external database: starting $name on 127.0.0.1:$port (host network)"
podman run -d --name "$name" --network host -e PORT="$port" -e HOST=127.0.0.1 -e DATABASE_URL="$db_url" \
  -e METRICS_ENABLED=true -e METRICS_TOKEN="$token" -v "$name-data:/data" "$IMAGE" 2> >(quiet >&2) >/dev/null
wait_ready "$name" "http://127.0.0.1:$port"
call=$(upload_and_wait "$name" "http://127.0.0.1:$port")
metrics=$(curl -s -H "authorization: Bearer $token" "http://127.0.0.1:$port/metrics")
grep -q '^cas_pipeline_stage_duration_seconds_count{stage="transcribe"} 1$' <<<"$metrics" || fail "$name: /metrics lacks the call's transcribe stage duration"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" = 401 ] || fail "$name: /metrics answered without the token"
[ -z "$(podman exec "$name" sh -c 'ls -A /data/postgres 2>/dev/null')" ] || fail "$name: an embedded database was started despite DATABASE_URL"
took=$(stop_within_limit "$name")
say "external database: call $call COMPLETED, stage durations on /metrics, SIGTERM -> exit 0 in ${took} s"

say "PASSED in $(($(date +%s) - started_at)) s (image $IMAGE)"
