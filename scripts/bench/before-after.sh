#!/usr/bin/env bash
# Runs one bench against two builds of Waggle, alternating, so that both see the same machine
# over the same period (the machine is shared: only figures taken side by side compare).
#
#   bash scripts/bench/before-after.sh BEFORE_DIR AFTER_DIR BENCH RUNS OUT_DIR [-- bench args]
#
# BEFORE_DIR and AFTER_DIR are checkouts, each built (`npm run build`) with node_modules
# installed; BENCH is a script name under scripts/bench (invoke, workflows, …). The runs go
# before, after, before, after, …; each run's Markdown is written to
# OUT_DIR/<BENCH>-<before|after>-<n>.md and its progress to the matching .log.
set -euo pipefail
if [ "$#" -lt 5 ]; then
  sed -n '2,10p' "$0" >&2
  exit 2
fi
before=$(cd "$1" && pwd)
after=$(cd "$2" && pwd)
bench=$3
runs=$4
out=$5
shift 5
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
for n in $(seq 1 "$runs"); do
  for side in before after; do
    dir=$before
    [ "$side" = after ] && dir=$after
    echo "before-after: $bench run $n of $runs, $side ($dir)" >&2
    (cd "$dir" && PATH="$dir/node_modules/.bin:$PATH" node "scripts/bench/$bench.mjs" "$@" >"$out/$bench-$side-$n.md" 2>"$out/$bench-$side-$n.log")
  done
done
echo "before-after: results in $out" >&2
