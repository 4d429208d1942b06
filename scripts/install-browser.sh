#!/usr/bin/env bash
# The browser the console's browser tier drives (test/browser): Debian's chromium package,
# driven by playwright-core with executablePath (playwright's own browser downloads are not
# reachable from every machine that runs the tests). Installed with apt-get when missing (as
# root, or through sudo), like scripts/install-tools.sh installs its tools; cheap when present.
# The tier itself asserts that its major version is playwright-core's own or one above.
#
# Environment:
#   CHROMIUM_PATH              another Chromium to use (then nothing is installed)
#   WAGGLE_TOOLS_NO_INSTALL=1  only check; never run apt-get
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'browser: %s\n' "$*" >&2; }
fail() {
  printf 'browser: %s\n' "$*" >&2
  exit 1
}

chromium_bin="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [[ ! -x "$chromium_bin" ]]; then
  [[ -z "${CHROMIUM_PATH:-}" ]] || fail "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable"
  if [[ "${WAGGLE_TOOLS_NO_INSTALL:-0}" == 1 ]] || ! command -v apt-get >/dev/null 2>&1; then
    fail "chromium is missing: install it (Debian/Ubuntu: apt-get install chromium), or set CHROMIUM_PATH"
  fi
  SUDO=()
  if [[ "$(id -u)" != 0 ]] && command -v sudo >/dev/null 2>&1; then SUDO=(sudo); fi
  say "\$ apt-get update -qq"
  "${SUDO[@]}" apt-get update -qq
  say "\$ apt-get install -y --no-install-recommends chromium"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
# Debian's wrapper script prints shell noise on stderr on some machines; the version is on stdout.
say "$("$chromium_bin" --version 2>/dev/null)"
