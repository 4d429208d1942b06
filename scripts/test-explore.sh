#!/usr/bin/env bash
# `npm run test:explore [-- MINUTES]`: the generated-input and raw-HTTP tiers with fresh seeds,
# round after round, for MINUTES (default 30). CI runs both with a fixed seed (test/generated/
# support/seeds.ts), so it passes or fails on the code; this is where new draws are tried. It
# stops at the first failure: the tier prints its seed ("replay with GENERATED_INPUT_SEED=…")
# and fast-check the smallest counterexample. Make that case a fixed regression test in the tier
# (and next to the code it fixes), then replay the seed to see it pass.
set -euo pipefail
cd "$(dirname "$0")/.."
export NX_DAEMON=false
minutes="${1:-30}"
if ! [[ "$minutes" =~ ^[0-9]+$ ]] || ((minutes < 1)); then
  echo "explore: MINUTES must be a whole number of minutes (got '$minutes')" >&2
  exit 64
fi
bash scripts/install-deps.sh
bash scripts/ensure-infra.sh
npm run --silent build
deadline=$((SECONDS + minutes * 60))
round=0
while ((SECONDS < deadline)); do
  round=$((round + 1))
  echo "explore: round $round ($(((deadline - SECONDS) / 60)) min left)"
  if ! GENERATED_INPUT_EXPLORE=1 npx jest --selectProjects generated --runInBand --forceExit; then
    echo "explore: round $round found a counterexample (its seed and case are above); add it to the tier's regression cases" >&2
    exit 1
  fi
done
echo "explore: $round rounds in $minutes min, no counterexample"
