# One image for every Waggle process. The first argument picks what runs
# (see deploy/docker/entrypoint.sh):
#   docker run waggle gateway          docker run waggle migrate
#   docker run waggle cli <args...>
# docs/operations/releasing.md builds it for linux/amd64 and linux/arm64, signs and pushes it.

# The base image, pinned by the digest of its multi-platform index: a rebuilt tag cannot
# change what is built. The Node.js version is the one package.json pins (the one the tests
# run on). Refresh both together: docker buildx imagetools inspect node:<version>-bookworm-slim
# prints the index digest (docs/operations/releasing.md). The digest below was taken from
# public Dockerfiles pinning this tag's index, not queried from the registry (the build
# machine has none): check it before a release.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:2fe369e969550cde8e867afc3fe370b260140cab4a23d467074295b42163d553

# ---- build: install everything, compile with swc, then drop dev dependencies ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# The Nx daemon is pointless in a one-shot build and leaves processes behind.
ENV NX_DAEMON=false
# Manifests first so that source edits reuse the cached install layer. `npm ci` only: it
# installs exactly the lockfile's tree, or fails when package.json and the lockfile disagree.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: compiled output and production dependencies only ----
FROM ${NODE_IMAGE} AS runtime
ARG NODE_IMAGE
# Set by the release build (docs/operations/releasing.md); the defaults mark a local build.
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="waggle" \
      org.opencontainers.image.description="Self-hostable service that runs a workspace's AI artifacts behind one public HTTP API: every Waggle app and the migrations in one image" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.base.name="${NODE_IMAGE}"
# tini runs as PID 1: it forwards SIGTERM/SIGINT to node (which the entrypoint
# `exec`s) and reaps zombies, so graceful shutdown works under `docker stop`
# and Kubernetes without relying on `docker run --init`.
# npm, npx, corepack and yarn come with the base image but nothing at runtime uses them
# (the entrypoint runs node alone): removed, they are no attack surface and no CVE to patch.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /opt/yarn-v* \
           /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg
ENV NODE_ENV=production \
    HOST=0.0.0.0
WORKDIR /app
# Files stay owned by root and are read-only for the runtime user, which also
# lets Kubernetes run the container with readOnlyRootFilesystem.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY LICENSE ./LICENSE
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
