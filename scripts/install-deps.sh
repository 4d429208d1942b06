#!/usr/bin/env bash
# Installs node_modules from the lockfile when they are missing or older than it.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null 2>&1; then
  echo "deps: Node.js 20.19+ is required (https://nodejs.org)" >&2
  exit 1
fi
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
  echo "deps: Node.js $(node --version) is too old; 20.19 or newer is required" >&2
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
