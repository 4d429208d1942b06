#!/usr/bin/env bash
# Makes sure PostgreSQL, Redis and NATS (with JetStream) answer before `npm run up` and
# `npm test`. When all three answer it prints one line each and exits at once.
#
# A service that does not answer, on a local address (127.0.0.1, localhost, ::1), on a
# machine with apt-get: its Debian package is installed if its binary is missing, then
# it is started the way this project's dev/CI machines start it, and waited for (30 s).
# A remote service, or a machine without apt-get: the script says what to do (and runs
# `docker compose up -d postgres redis nats` only when WAGGLE_INFRA_DOCKER=1).
#
# Environment:
#   DATABASE_URL  default postgres://postgres@127.0.0.1:5432/waggle
#   REDIS_URL     default redis://127.0.0.1:6379
#   NATS_URL      default nats://127.0.0.1:4222 (comma-separated list: the first is checked)
#   WAGGLE_INFRA_NO_INSTALL=1  only check; never install or start anything
#   WAGGLE_INFRA_DOCKER=1      allow `docker compose up -d ...` when that is the remedy
#   WAGGLE_INFRA_PGVECTOR=0    never build the pgvector extension (see ensure_pgvector)
#
# Only host:port is ever printed: user names and passwords in the URLs are not.
set -euo pipefail

DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/waggle}"
REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
NATS_URL="${NATS_URL:-nats://127.0.0.1:4222}"
NO_INSTALL="${WAGGLE_INFRA_NO_INSTALL:-0}"
ALLOW_DOCKER="${WAGGLE_INFRA_DOCKER:-0}"
WAIT_SECONDS=30
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

say() { printf 'infra: %s\n' "$*"; }
warn() { printf 'infra: %s\n' "$*" >&2; }

# --- URL parsing -------------------------------------------------------------------------

# parse_url URL DEFAULT_PORT -> sets URL_HOST, URL_PORT, URL_USER, URL_PASS (never printed).
parse_url() {
  local url="$1" default_port="$2" rest authority userinfo=""
  rest="${url#*://}"
  rest="${rest%%,*}"        # first server of a list (nats://a:4222,nats://b:4222)
  authority="${rest%%[/?#]*}"
  if [[ "$authority" == *@* ]]; then
    userinfo="${authority%@*}"
    authority="${authority##*@}"
  fi
  URL_USER="${userinfo%%:*}"
  URL_PASS=""
  [[ "$userinfo" == *:* ]] && URL_PASS="${userinfo#*:}"
  if [[ "$authority" == \[* ]]; then # [::1]:5432
    URL_HOST="${authority#[}"
    URL_HOST="${URL_HOST%%]*}"
    URL_PORT="${authority##*]}"
    URL_PORT="${URL_PORT#:}"
  elif [[ "$authority" == *:* ]]; then
    URL_HOST="${authority%:*}"
    URL_PORT="${authority##*:}"
  else
    URL_HOST="$authority"
    URL_PORT=""
  fi
  [[ -n "$URL_HOST" ]] || URL_HOST="localhost"
  [[ -n "$URL_PORT" ]] || URL_PORT="$default_port"
  if ! [[ "$URL_PORT" =~ ^[0-9]+$ ]]; then
    warn "cannot read a port from a ${url%%://*}:// URL (got '${URL_PORT}'); check the variable"
    exit 1
  fi
}

urldecode() { local s="${1//+/ }"; printf '%b' "${s//%/\\x}"; }

is_local() { [[ "$1" == 127.* || "$1" == "localhost" || "$1" == "::1" ]]; }

addr() { if [[ "$1" == *:* ]]; then printf '[%s]:%s' "$1" "$2"; else printf '%s:%s' "$1" "$2"; fi; }

# --- checks ------------------------------------------------------------------------------

tcp_ok() {
  timeout 1 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

answers() { # answers SERVICE HOST PORT
  local service="$1" host="$2" port="$3"
  tcp_ok "$host" "$port" || return 1
  if [[ "$service" == postgres ]] && command -v pg_isready >/dev/null 2>&1; then
    timeout 2 pg_isready -q -h "$host" -p "$port" -t 1 >/dev/null 2>&1 || return 1
  fi
  return 0
}

# --- privileges and packages -------------------------------------------------------------

SUDO=()
if [[ "$(id -u)" != 0 ]] && command -v sudo >/dev/null 2>&1; then SUDO=(sudo); fi
run() { say "\$$(printf ' %q' "$@")"; "${SUDO[@]}" "$@"; }

APT_UPDATED=0
apt_install() { # apt_install PACKAGE
  if [[ "$APT_UPDATED" == 0 ]]; then
    run apt-get update -qq
    APT_UPDATED=1
  fi
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$1"
}

nats_binary() {
  if [[ -x /usr/sbin/nats-server ]]; then echo /usr/sbin/nats-server; else command -v nats-server 2>/dev/null || true; fi
}

pg_version() { # the first cluster's version, as node-svc starts it
  ls /etc/postgresql 2>/dev/null | head -1
}

# --- starting each service locally -------------------------------------------------------

PG_JUST_INSTALLED=0

ensure_postgres_installed() {
  if command -v pg_ctlcluster >/dev/null 2>&1; then return 0; fi
  say "postgres: pg_ctlcluster not found; installing Debian's postgresql"
  apt_install postgresql
  PG_JUST_INSTALLED=1
}

# Debian's fresh cluster lets local TCP connections in by password only (scram/md5), and the
# postgres role has none. Only for a cluster this script installed: trust loopback TCP.
trust_loopback_tcp() {
  local version="$1" hba="/etc/postgresql/$1/main/pg_hba.conf" tmp
  if grep -q '^host all all 127.0.0.1/32 trust' "$hba" 2>/dev/null; then return 0; fi
  say "postgres: fresh dev cluster: adding loopback TCP trust at the top of $hba"
  tmp="$(mktemp)"
  {
    echo '# Added by waggle scripts/ensure-infra.sh for a fresh dev install: loopback TCP without a password.'
    echo 'host all all 127.0.0.1/32 trust'
    echo 'host all all ::1/128 trust'
    "${SUDO[@]}" cat "$hba"
  } >"$tmp"
  run cp "$tmp" "$hba"
  rm -f "$tmp"
  run chown postgres:postgres "$hba" || true
}

start_postgres() { # start_postgres HOST PORT
  local port="$2" version conf_port
  ensure_postgres_installed
  version="$(pg_version)"
  if [[ -z "$version" ]]; then
    version="$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -1)"
    if [[ -z "$version" ]] || ! command -v pg_createcluster >/dev/null 2>&1; then
      warn "postgres: no cluster in /etc/postgresql and no server in /usr/lib/postgresql; reinstall Debian's postgresql"
      return 1
    fi
    say "postgres: no cluster yet; creating $version/main"
    run pg_createcluster "$version" main
    PG_JUST_INSTALLED=1
  fi
  conf_port="$(sed -n 's/^[[:space:]]*port[[:space:]]*=[[:space:]]*\([0-9]*\).*/\1/p' "/etc/postgresql/$version/main/postgresql.conf" 2>/dev/null | head -1)"
  if [[ -n "$conf_port" && "$conf_port" != "$port" ]]; then
    warn "postgres: cluster $version/main is set to port $conf_port but DATABASE_URL names port $port"
  fi
  if [[ "$PG_JUST_INSTALLED" == 1 ]]; then trust_loopback_tcp "$version"; fi
  if [[ "$PG_JUST_INSTALLED" == 0 ]] && "${SUDO[@]}" pg_ctlcluster --skip-systemctl-redirect "$version" main status >/dev/null 2>&1; then
    # Running, yet not answering at this address: waiting will not change that.
    warn "postgres: cluster $version/main is running but does not answer at $(addr "$1" "$port");"
    warn "  check port and listen_addresses in /etc/postgresql/$version/main/postgresql.conf (and DATABASE_URL)"
    return 1
  elif "${SUDO[@]}" pg_ctlcluster --skip-systemctl-redirect "$version" main status >/dev/null 2>&1; then
    say "postgres: cluster $version/main is already running"
  else
    run pg_ctlcluster --skip-systemctl-redirect "$version" main start
  fi
  if [[ "$PG_JUST_INSTALLED" == 1 ]]; then
    run pg_ctlcluster --skip-systemctl-redirect "$version" main reload
  fi
}

# After PostgreSQL answers: can the URL's user log in over TCP? (needs psql; best effort)
check_postgres_login() { # check_postgres_login HOST PORT
  local host="$1" port="$2" user
  command -v psql >/dev/null 2>&1 || return 0
  user="$(urldecode "${URL_USER:-postgres}")"
  [[ -n "$user" ]] || user=postgres
  if PGPASSWORD="$(urldecode "$URL_PASS")" PGCONNECT_TIMEOUT=3 \
    psql -X -q -w -h "$host" -p "$port" -U "$user" -d postgres -c 'select 1' >/dev/null 2>&1; then
    return 0
  fi
  warn "postgres: $(addr "$host" "$port") answers, but the user in DATABASE_URL cannot log in over TCP."
  warn "  Debian's cluster asks for a password on TCP. Either give that role a password and put it in"
  warn "  DATABASE_URL, or (dev machine only) add 'host all all 127.0.0.1/32 trust' at the top of"
  warn "  /etc/postgresql/<version>/main/pg_hba.conf and run: pg_ctlcluster <version> main reload"
  return 0
}

start_redis() { # start_redis HOST PORT
  local port="$2" dir=/var/lib/redis log=/var/log/redis/waggle.log
  if ! command -v redis-server >/dev/null 2>&1; then
    say "redis: redis-server not found; installing Debian's redis-server"
    apt_install redis-server
    # The package may have started its own server on the default port.
    if answers redis "$1" "$port"; then return 0; fi
  fi
  run mkdir -p "$dir" "$(dirname "$log")"
  run touch "$log"
  run redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$port" --save "" --appendonly no --dir "$dir" --logfile "$log"
}

start_nats() { # start_nats HOST PORT
  local port="$2" bin store log=/var/log/nats-server.log
  bin="$(nats_binary)"
  if [[ -z "$bin" ]]; then
    say "nats: nats-server not found; installing Debian's nats-server"
    apt_install nats-server
    if answers nats "$1" "$port"; then return 0; fi
    bin="$(nats_binary)"
    [[ -n "$bin" ]] || { warn "nats: nats-server still not found after installing"; return 1; }
  fi
  # A second server (another port) gets its own JetStream store: two cannot share one.
  store=/var/lib/nats-server
  [[ "$port" == 4222 ]] || store="/var/lib/nats-server-$port"
  run mkdir -p "$store" "$(dirname "$log")"
  if command -v start-stop-daemon >/dev/null 2>&1; then
    # The pidfile makes --oknodo look for a server on this port, not any nats-server.
    run start-stop-daemon --start --oknodo --background --make-pidfile --pidfile "/run/waggle-nats-server-$port.pid" \
      --exec "$bin" -- -a 127.0.0.1 -p "$port" -js -sd "$store" -l "$log"
  else
    say "\$ nohup $bin -a 127.0.0.1 -p $port -js -sd $store -l $log &"
    nohup "${SUDO[@]}" "$bin" -a 127.0.0.1 -p "$port" -js -sd "$store" -l "$log" >/dev/null 2>&1 &
  fi
}

wait_for() { # wait_for SERVICE HOST PORT
  local service="$1" host="$2" port="$3" start=$SECONDS elapsed last=-1
  while true; do
    if answers "$service" "$host" "$port"; then
      say "$service $(addr "$host" "$port") ok (after $((SECONDS - start)) s)"
      return 0
    fi
    elapsed=$((SECONDS - start))
    if ((elapsed >= WAIT_SECONDS)); then
      warn "$service $(addr "$host" "$port") still does not answer after ${WAIT_SECONDS} s"
      return 1
    fi
    if ((elapsed % 5 == 0 && elapsed != last)); then
      say "waiting for $service at $(addr "$host" "$port") (${elapsed} s of ${WAIT_SECONDS} s)"
      last=$elapsed
    fi
    sleep 0.5
  done
}

# --- remedies for what could not be started here -----------------------------------------

docker_works() { command -v docker >/dev/null 2>&1 && timeout 5 docker compose version >/dev/null 2>&1; }

url_var() { case "$1" in postgres) echo DATABASE_URL ;; redis) echo REDIS_URL ;; nats) echo NATS_URL ;; esac; }

explain_failure() { # explain_failure SERVICE HOST PORT REASON
  local service="$1" host="$2" port="$3" reason="$4" var
  var="$(url_var "$service")"
  warn "$service at $(addr "$host" "$port") ($var) does not answer: $reason."
  if [[ "$reason" == *"did not work"* ]]; then
    : # what went wrong is printed above
  elif ! is_local "$host"; then
    warn "  It is not on this machine: start it there, or check the network path, or point $var at a running $service."
  else
    case "$service" in
      postgres) warn "  Start it: pg_ctlcluster --skip-systemctl-redirect \$(ls /etc/postgresql | head -1) main start (Debian), or install PostgreSQL." ;;
      redis) warn "  Start it: redis-server --daemonize yes --bind 127.0.0.1 --port $port --save \"\" --appendonly no" ;;
      nats) warn "  Start it: nats-server -a 127.0.0.1 -p $port -js -sd /var/lib/nats-server (JetStream is required)" ;;
    esac
  fi
  return 0
}

# --- pgvector ----------------------------------------------------------------------------

# The knowledge-base service uses pgvector when the database offers the `vector` extension
# (the compose and Helm images do) and an exact scan in the service otherwise. On a local
# Debian cluster without it, build it from Debian's own source package (pgvector is packaged
# from trixie on; bookworm has none) against postgresql-server-dev-<version>, JIT off. Never
# fatal: the service works without it.
PGVECTOR_SUITE=trixie
ensure_pgvector() { # ensure_pgvector HOST PORT
  local host="$1" port="$2" version sources=/etc/apt/sources.list.d/waggle-pgvector-src.sources work
  [[ "${WAGGLE_INFRA_PGVECTOR:-1}" == 0 || "$NO_INSTALL" == 1 ]] && return 0
  is_local "$host" && command -v apt-get >/dev/null 2>&1 && command -v psql >/dev/null 2>&1 || return 0
  if PGPASSWORD="$(urldecode "${PG_PASS:-}")" psql -X -q -w -At -h "$host" -p "$port" -U "$(urldecode "${PG_USER:-postgres}")" -d postgres \
    -c "select 1 from pg_available_extensions where name = 'vector'" 2>/dev/null | grep -q 1; then
    say "postgres: the vector extension (pgvector) is available"
    return 0
  fi
  version="$(pg_version)"
  [[ -n "$version" ]] || return 0
  say "postgres: no vector extension; building pgvector from Debian's source package for PostgreSQL $version"
  (
    set -e
    if [[ ! -f "$sources" ]]; then
      printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$PGVECTOR_SUITE" | "${SUDO[@]}" tee "$sources" >/dev/null
      APT_UPDATED=0
    fi
    apt_install "postgresql-server-dev-$version"
    apt_install dpkg-dev
    work="$(mktemp -d)"
    cd "$work"
    run apt-get source --download-only pgvector
    tar xzf pgvector_*.orig.tar.gz
    cd pgvector-*/
    run make with_llvm=no PG_CONFIG="/usr/lib/postgresql/$version/bin/pg_config"
    run make with_llvm=no PG_CONFIG="/usr/lib/postgresql/$version/bin/pg_config" install
    rm -rf "$work"
  ) || { warn "postgres: building pgvector did not work; vector search will use the exact scan in the service"; return 0; }
  say "postgres: pgvector installed"
}

# --- main --------------------------------------------------------------------------------

declare -A HOST PORT
parse_url "$DATABASE_URL" 5432
HOST[postgres]="$URL_HOST" PORT[postgres]="$URL_PORT"
PG_USER="$URL_USER" PG_PASS="$URL_PASS"
parse_url "$REDIS_URL" 6379
HOST[redis]="$URL_HOST" PORT[redis]="$URL_PORT"
parse_url "$NATS_URL" 4222
HOST[nats]="$URL_HOST" PORT[nats]="$URL_PORT"
URL_USER="" URL_PASS=""

SERVICES=(postgres redis nats)
missing=()
for service in "${SERVICES[@]}"; do
  if answers "$service" "${HOST[$service]}" "${PORT[$service]}"; then
    say "$service $(addr "${HOST[$service]}" "${PORT[$service]}") ok"
  else
    missing+=("$service")
  fi
done
if ((${#missing[@]} == 0)); then
  ensure_pgvector "${HOST[postgres]}" "${PORT[postgres]}"
  exit 0
fi

failed=()
docker_candidates=()
for service in "${missing[@]}"; do
  host="${HOST[$service]}" port="${PORT[$service]}"
  say "$service $(addr "$host" "$port") does not answer"
  if [[ "$NO_INSTALL" == 1 ]]; then
    explain_failure "$service" "$host" "$port" "WAGGLE_INFRA_NO_INSTALL=1, so this script did not install or start it"
    failed+=("$service")
  elif is_local "$host" && command -v apt-get >/dev/null 2>&1; then
    if "start_$service" "$host" "$port" && wait_for "$service" "$host" "$port"; then
      if [[ "$service" == postgres ]]; then
        URL_USER="$PG_USER" URL_PASS="$PG_PASS"
        check_postgres_login "$host" "$port"
        URL_USER="" URL_PASS=""
      fi
    else
      explain_failure "$service" "$host" "$port" "starting it here did not work (see above)"
      failed+=("$service")
    fi
  else
    docker_candidates+=("$service")
  fi
done

if ((${#docker_candidates[@]} > 0)); then
  if docker_works; then
    # Note: docker-compose.yml does not publish the infrastructure ports, so containers
    # started this way answer on the host only if a compose override publishes them.
    say "docker compose is available: 'docker compose up -d postgres redis nats' (in $REPO_ROOT) starts the infrastructure"
    if [[ "$ALLOW_DOCKER" == 1 ]]; then
      (cd "$REPO_ROOT" && run docker compose up -d postgres redis nats)
      for service in "${docker_candidates[@]}"; do
        wait_for "$service" "${HOST[$service]}" "${PORT[$service]}" || {
          explain_failure "$service" "${HOST[$service]}" "${PORT[$service]}" "not reachable after docker compose up"
          failed+=("$service")
        }
      done
    else
      say "set WAGGLE_INFRA_DOCKER=1 to let this script run it"
      for service in "${docker_candidates[@]}"; do
        explain_failure "$service" "${HOST[$service]}" "${PORT[$service]}" "not started (WAGGLE_INFRA_DOCKER is not 1)"
        failed+=("$service")
      done
    fi
  else
    for service in "${docker_candidates[@]}"; do
      reason="no apt-get here to install it"
      is_local "${HOST[$service]}" || reason="it is remote, so this script does not start it"
      explain_failure "$service" "${HOST[$service]}" "${PORT[$service]}" "$reason, and docker compose is not available"
      failed+=("$service")
    done
  fi
fi

if ((${#failed[@]} > 0)); then
  warn "not ready: ${failed[*]}"
  exit 1
fi
ensure_pgvector "${HOST[postgres]}" "${PORT[postgres]}"
exit 0
