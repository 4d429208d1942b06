#!/usr/bin/env bash
# `npm run up [-- --replicas N]`: dependencies, infrastructure, build, migrations, then
# all seven apps under the supervisor (scripts/start-all.mjs, which takes the arguments).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/ensure-infra.sh
npm run --silent build
node dist/tools/migrate/src/main.js
exec node scripts/start-all.mjs "$@"
