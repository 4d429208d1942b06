#!/usr/bin/env bash
# Installs node_modules from the lockfile when they are missing or older than it.
set -euo pipefail
cd "$(dirname "$0")/.."

# The machine's Node.js only runs npm install: the project runs on the Node.js that
# package.json pins as the devDependency `node` (the npm registry's package of the official
# binary, node_modules/.bin/node), which npm scripts find ahead of the machine's own.
if ! command -v node >/dev/null 2>&1; then
  echo "deps: a Node.js with npm is required to install the project's own (https://nodejs.org)" >&2
  exit 1
fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "deps: installing from package-lock.json"
  # `npm install` rather than `npm ci`: npm 11.19 writes lockfiles without the other
  # platforms' optional binaries (@swc/core-darwin-*, …) and then its own `npm ci`
  # refuses them as out of sync. With a lockfile present, `npm install` installs
  # exactly the locked versions.
  npm install --no-audit --no-fund --loglevel=error
else
  echo "deps: node_modules up to date"
fi
pinned="$(node -p 'require("./package.json").devDependencies.node')"
if [ "$(node_modules/.bin/node --version 2>/dev/null)" != "v$pinned" ]; then
  echo "deps: node_modules/.bin/node is not Node.js $pinned; reinstalling the node package"
  npm install --no-audit --no-fund --loglevel=error --no-save "node@$pinned"
fi
