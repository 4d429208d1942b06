# One image for every Waggle process. The first argument picks what runs
# (see deploy/docker/entrypoint.sh):
#   docker run waggle gateway          docker run waggle migrate
#   docker run waggle cli <args...>

# ---- build: install everything, compile with swc, then drop dev dependencies ----
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
# The Nx daemon is pointless in a one-shot build and leaves processes behind.
ENV NX_DAEMON=false
# Manifests first so that source edits reuse the cached install layer. `npm ci` is
# preferred; a lockfile written by npm 11.19 lacks other platforms' optional binaries,
# which some npm versions then refuse, so fall back to `npm install` of the locked tree.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund || npm install --no-audit --no-fund
COPY . .
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: compiled output and production dependencies only ----
FROM node:24.21.0-bookworm-slim AS runtime
# tini runs as PID 1: it forwards SIGTERM/SIGINT to node (which the entrypoint
# `exec`s) and reaps zombies, so graceful shutdown works under `docker stop`
# and Kubernetes without relying on `docker run --init`.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    HOST=0.0.0.0
WORKDIR /app
# Files stay owned by root and are read-only for the runtime user, which also
# lets Kubernetes run the container with readOnlyRootFilesystem.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY deploy/docker/entrypoint.sh ./deploy/docker/entrypoint.sh
RUN chmod 0755 ./deploy/docker/entrypoint.sh \
 && mkdir -p /var/lib/waggle/assets \
 && chown 1000:1000 /var/lib/waggle/assets
# ^ The asset service's filesystem storage (ASSET_STORAGE_DIR): a volume mounts here, and a
# new named volume takes this directory's owner, the runtime user.
# The base image's `node` user, given numerically so that Kubernetes'
# runAsNonRoot can verify it without a runAsUser override.
USER 1000:1000
ENTRYPOINT ["/usr/bin/tini", "--", "/app/deploy/docker/entrypoint.sh"]
# No default CMD on purpose: without an argument the entrypoint prints usage
# and exits 64 rather than silently starting one particular app.
