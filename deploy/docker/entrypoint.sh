#!/bin/sh
# Entrypoint of the single Waggle image: the first argument picks the process.
#
#   entrypoint.sh <app> | migrate [args...] | cli [args...]
#
# Every branch `exec`s node so that node replaces this shell and receives
# SIGTERM directly from tini (PID 1 in the image), which lets the apps drain
# within SHUTDOWN_GRACE_MS instead of being killed when the grace period ends.
set -eu

usage() {
  cat >&2 <<'USAGE'
usage: entrypoint.sh <command> [args...]

commands:
  gateway | invocation | agent | knowledge-base | asset | catalog | callback-dispatcher
                 start that app (it listens on $PORT and serves /health/live, /health/ready)
  migrate        run every service's database migrations, creating the database if missing
  cli [args...]  run the operator CLI with the remaining arguments
USAGE
}

# dist/ paths are relative to the repository root (/app in the image), two levels
# above this script; resolving it here makes the script independent of the caller's cwd.
cd "$(dirname "$0")/../.."

if [ "$#" -eq 0 ]; then
  usage
  exit 64
fi

command="$1"
shift

case "$command" in
  gateway | invocation | agent | knowledge-base | asset | catalog | callback-dispatcher)
    exec node "dist/apps/$command/src/main.js" "$@"
    ;;
  migrate)
    exec node dist/tools/migrate/src/main.js "$@"
    ;;
  cli)
    exec node dist/tools/cli/src/main.js "$@"
    ;;
  *)
    printf 'entrypoint.sh: unknown command "%s"\n\n' "$command" >&2
    usage
    # 64 is EX_USAGE from sysexits.h: the command was used incorrectly.
    exit 64
    ;;
esac
