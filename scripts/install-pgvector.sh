#!/usr/bin/env bash
# Builds and installs pgvector for the machine's PostgreSQL (default: the one cluster in /etc/postgresql),
# so `CREATE EXTENSION vector` works on it (drizzle/0009 needs it). Neon ships pgvector 0.8.0, so this
# builds exactly that version: Debian bookworm has no pgvector for PostgreSQL 15, trixie has the source
# package 0.8.0.
#
# Nothing of the system's apt configuration changes: apt reads a private sources list (a deb-src line for
# trixie main and the machine's own deb lines, converted from /etc/apt/sources.list.d/debian.sources) with
# its lists and cache in a temporary folder. The server headers (postgresql-server-dev-<major>, of the
# installed server's version) are unpacked into that folder too, not installed.
#
# Idempotent: does nothing when `vector` is already in pg_available_extensions (or its control file is
# installed, when the server does not answer). Needs root for `make install` (uses sudo when not root).
#
#   scripts/install-pgvector.sh            PG_MAJOR=15 PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres
set -euo pipefail

PGVECTOR_VERSION=0.8.0
PG_MAJOR=${PG_MAJOR:-$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)}
PGHOST=${PGHOST:-127.0.0.1}
PGPORT=${PGPORT:-5432}
PGUSER=${PGUSER:-postgres}
DEBIAN_SOURCES=${DEBIAN_SOURCES:-/etc/apt/sources.list.d/debian.sources}
SOURCE_SUITE=${SOURCE_SUITE:-trixie}

log() { echo "install-pgvector: $*" >&2; }
die() {
  log "$*"
  exit 1
}

[ -n "$PG_MAJOR" ] || die "no PostgreSQL found in /etc/postgresql (set PG_MAJOR)"
PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
[ -x "$PG_CONFIG" ] || die "$PG_CONFIG not found"
SHAREDIR=$("$PG_CONFIG" --sharedir)

# Prints the available version (or "installed") and succeeds when the server can create the extension.
available() {
  local answer
  if answer=$(psql -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d postgres -XAtqc \
    "select default_version from pg_available_extensions where name = 'vector'" 2>/dev/null); then
    [ -n "$answer" ] && echo "$answer" && return 0
    return 1
  fi
  # The server does not answer: what it would list is what its share directory holds.
  [ -f "$SHAREDIR/extension/vector.control" ] && echo "installed" && return 0
  return 1
}

if found=$(available); then
  log "vector $found is already available for PostgreSQL $PG_MAJOR: nothing to do"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "make install needs root (or sudo)"
  SUDO=(sudo)
fi
for tool in apt-get dpkg dpkg-query make gcc tar; do
  command -v "$tool" >/dev/null || die "$tool is required"
done
[ -r "$DEBIAN_SOURCES" ] || die "$DEBIAN_SOURCES not readable"

started=$(date +%s)
WORK=$(mktemp -d /tmp/install-pgvector.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
chmod 755 "$WORK"
mkdir -p "$WORK/lists/partial" "$WORK/cache/archives/partial" "$WORK/download" "$WORK/root"
# apt downloads as the unprivileged _apt user when it can.
if getent passwd _apt >/dev/null && [ "$(id -u)" -eq 0 ]; then chown -R _apt "$WORK/lists" "$WORK/cache" "$WORK/download"; fi

# The machine's deb822 stanzas as one-line entries (each suite of each stanza), plus the source suite.
awk -v suite="$SOURCE_SUITE" '
  function flush() {
    if (types != "" && uris != "") {
      n = split(suites, s, " ")
      for (i = 1; i <= n; i++) {
        split(types, t, " ")
        for (j in t) printf "%s [%s] %s %s %s\n", t[j], opts, uris, s[i], comps
      }
      if (first_uri == "" && uris !~ /security/) { first_uri = uris; first_opts = opts }
    }
    types = uris = suites = comps = opts = ""
  }
  /^[[:space:]]*#/ { next }
  /^[[:space:]]*$/ { flush(); next }
  {
    key = $1; sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
    if (key == "Types") types = $0
    else if (key == "URIs") uris = $0
    else if (key == "Suites") suites = $0
    else if (key == "Components") comps = $0
    else if (key == "Signed-By") opts = "signed-by=" $0
  }
  END {
    flush()
    if (first_uri == "") exit 1
    printf "deb-src [%s] %s %s main\n", first_opts, first_uri, suite
  }
' "$DEBIAN_SOURCES" >"$WORK/sources.list" || die "no Debian archive URI found in $DEBIAN_SOURCES"
log "private sources list:"
sed 's/^/  /' "$WORK/sources.list" >&2

APT=(
  apt-get -q
  -o "Dir::Etc::SourceList=$WORK/sources.list"
  -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$WORK/lists"
  -o "Dir::Cache=$WORK/cache"
  -o "Debug::NoLocking=true"
)
"${APT[@]}" update >"$WORK/apt-update.log" 2>&1 || {
  cat "$WORK/apt-update.log" >&2
  die "apt-get update (private lists) failed"
}

cd "$WORK/download"
"${APT[@]}" source --download-only "pgvector/$SOURCE_SUITE" >&2
ORIG=$(ls pgvector_"$PGVECTOR_VERSION".orig.tar.* 2>/dev/null | head -n 1)
[ -n "$ORIG" ] || die "the $SOURCE_SUITE source package has no pgvector $PGVECTOR_VERSION ($(ls))"

# The headers of the very server that runs (same version as the installed postgresql-<major>).
SERVER_VERSION=$(dpkg-query -W -f '${Version}' "postgresql-$PG_MAJOR" 2>/dev/null || true)
"${APT[@]}" download "postgresql-server-dev-$PG_MAJOR${SERVER_VERSION:+=$SERVER_VERSION}" >&2 || {
  log "postgresql-server-dev-$PG_MAJOR $SERVER_VERSION is not in the archive; taking the candidate version"
  "${APT[@]}" download "postgresql-server-dev-$PG_MAJOR" >&2
}
dpkg -x postgresql-server-dev-"$PG_MAJOR"_*.deb "$WORK/root"
INCLUDEDIR_SERVER="$WORK/root/usr/include/postgresql/$PG_MAJOR/server"
[ -f "$INCLUDEDIR_SERVER/postgres.h" ] || die "no server headers in the postgresql-server-dev-$PG_MAJOR package"

tar -xf "$ORIG" -C "$WORK"
SRC="$WORK/pgvector-$PGVECTOR_VERSION"
[ -f "$SRC/vector.control" ] || die "unexpected layout of $ORIG"
# OPTFLAGS="": no -march=native, so the library runs on any x86-64 the cluster moves to.
MAKEFLAGS_PG=(OPTFLAGS="" with_llvm=no PG_CONFIG="$PG_CONFIG" includedir_server="$INCLUDEDIR_SERVER")
make -C "$SRC" -j"$(nproc)" "${MAKEFLAGS_PG[@]}" >"$WORK/make.log" 2>&1 || {
  tail -n 40 "$WORK/make.log" >&2
  die "build failed"
}
"${SUDO[@]}" make -C "$SRC" "${MAKEFLAGS_PG[@]}" install >"$WORK/make-install.log" 2>&1 || {
  tail -n 40 "$WORK/make-install.log" >&2
  die "make install failed"
}
found=$(available) || die "installed, but vector is still not available"
log "pgvector $PGVECTOR_VERSION ($found) installed for PostgreSQL $PG_MAJOR in $(($(date +%s) - started)) s"
