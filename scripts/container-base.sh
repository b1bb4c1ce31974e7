#!/usr/bin/env bash
# Base images for building the Dockerfile on a machine that reaches no container registry (only
# Debian's mirror and the npm registry), such as this project's development machines:
#   localhost/debian:bookworm        a minbase Debian 12 root made with debootstrap from the mirror
#                                    apt uses here;
#   docker.io/library/node:20-bookworm-slim
#                                    a stand-in for the official image under its own name: that root
#                                    plus this machine's Node 20 binary and npm, and the `node` user
#                                    (uid 1000) the official image has; the Dockerfile builds
#                                    unchanged against either.
# Idempotent: an image that exists is kept (FORCE=1 remakes both). Needs root, podman, buildah and
# debootstrap (apt-get install podman buildah debootstrap).
set -euo pipefail
work=${CONTAINER_BASE_DIR:-/var/tmp/cas-container-base}
mirror=${DEBIAN_MIRROR:-$(awk '/^URIs:/ {print $2; exit} /^deb / {print $2; exit}' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -n1)}
mirror=${mirror:-http://deb.debian.org/debian}

if [ "${FORCE:-}" = 1 ] || ! podman image exists localhost/debian:bookworm; then
  echo "container-base: debootstrap bookworm from $mirror" >&2
  rm -rf "$work/rootfs"
  mkdir -p "$work"
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -c . | podman import - localhost/debian:bookworm >/dev/null
fi

if [ "${FORCE:-}" = 1 ] || ! podman image exists docker.io/library/node:20-bookworm-slim; then
  node_bin=$(command -v node)
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  case "$(node -v)" in v20.*) ;; *) echo "container-base: this machine's node is $(node -v), not 20" >&2; exit 1 ;; esac
  echo "container-base: node:20-bookworm-slim stand-in from $node_bin $(node -v) and npm $(npm -v)" >&2
  ctx=$(mktemp -d)
  trap 'rm -rf "$ctx"' EXIT
  cp "$node_bin" "$ctx/node"
  cp -a "$npm_dir" "$ctx/npm"
  cat >"$ctx/Containerfile" <<'CF'
FROM localhost/debian:bookworm
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
CMD ["node"]
CF
  buildah bud --quiet --layers=false -t docker.io/library/node:20-bookworm-slim "$ctx" >/dev/null
fi
podman image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E 'debian:bookworm|node:20-bookworm-slim' >&2
