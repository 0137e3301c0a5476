#!/usr/bin/env bash
# Installs the test host: code-server (VS Code served to a browser, with a real Node extension
# host) into a cache outside the repository, and Debian's Chromium for Playwright to drive.
#   default: code-server 4.139.1 = VS Code 1.139.1, today's, on the Node that runs this script (24);
#   CODE_SERVER_VERSION=4.103.2 with FIRECREST_CODE_SERVER_NODE=<node 22>: VS Code 1.103.2, the
#   oldest the extension declares (engines.vscode), for the smoke run.
# code-server's native modules are built against the headers of the Node that will run it (Node's
# platform packages carry them): never against another line's, whatever ~/.npmrc says.
# Idempotent: returns at once when everything is already there. Prints the code-server entry point.
# Under a lock (flock on the cache folder); apt-get/dpkg/npm output goes to <cache>/install.log.
set -euo pipefail

CS_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
NODE_BIN="$(readlink -f "${FIRECREST_CODE_SERVER_NODE:-$(command -v node)}")"
NODE_PREFIX="$(dirname "$(dirname "$NODE_BIN")")"
CACHE="${FIRECREST_TEST_HOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/firecrest-vscode}"
DIR="$CACHE/code-server-$CS_VERSION"
ENTRY="$DIR/node_modules/code-server/out/node/entry.js"
PKGS=(build-essential python3 pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep)
# The browser is for the test suites; `npm start` serves VS Code to the user's own browser.
[ "${FIRECREST_SKIP_BROWSER:-}" = 1 ] || PKGS+=(chromium)

log() { echo "[install-test-host] $*" >&2; }

# One install of a version at a time: two `npm start`s (or a start and a test run) wait for each
# other instead of writing the same folder together. Two versions install side by side; their
# apt-get calls take turns on APT_LOCK.
mkdir -p "$CACHE"
exec 9>"$CACHE/.install-$CS_VERSION.lock"
if ! flock -n 9; then
  log "another install into $CACHE is running; waiting for it"
  flock 9
fi
# What apt-get, dpkg and npm print goes to a log file; the terminal gets one line per step, and
# the log's tail when a step fails.
LOG="$CACHE/install-$CS_VERSION.log"
quiet() {
  if ! "$@" >>"$LOG" 2>&1; then
    log "failed: $* (the last lines of $LOG follow)"
    tail -n 30 "$LOG" >&2
    exit 1
  fi
}

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  log "installing Debian packages: ${missing[*]} (details in $LOG)"
  # `9>&-`: a service a package's postinst starts must not inherit (and so hold) the install lock.
  # The project's apt-get calls take turns on APT_LOCK (scripts/slurm.sh install may run at the
  # same time, and `apt-get update` fails at once on a lists lock another apt-get holds);
  # `flock -o` does not pass that lock on to apt-get.
  APT_LOCK=/run/lock/firecrest-apt.lock
  $SUDO mkdir -p /run/lock
  quiet $SUDO flock -o "$APT_LOCK" apt-get -o DPkg::Lock::Timeout=600 update -qq 9>&-
  quiet $SUDO flock -o "$APT_LOCK" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" 9>&-
fi

if [ -f "$ENTRY" ] && [ -f "$DIR/.complete" ]; then
  echo "$ENTRY"
  exit 0
fi

log "installing code-server $CS_VERSION into $DIR (a few minutes, about 300 MB)"
mkdir -p "$DIR"
# @vscode/ripgrep's postinstall downloads ripgrep unless its cache already holds the archive
# (<tmp>/vscode-ripgrep-cache-<its version>/ripgrep-<release>-<target>.tar.gz): feed it Debian's rg
# instead, for the versions and releases the supported code-servers use (same TMPDIR as the install).
TMP="${TMPDIR:-/tmp}"
RG_TAR="$TMP/vscode-ripgrep-debian.tar.gz"
[ -f "$RG_TAR" ] || tar czf "$RG_TAR" -C /usr/bin rg
for version in 1.15.9 1.15.10 1.15.11 1.15.12 1.15.13 1.15.14 1.15.15 1.15.16; do
  mkdir -p "$TMP/vscode-ripgrep-cache-$version"
  for release in 10 11 12 13 14 15; do
    for arch in x86_64-unknown-linux-musl aarch64-unknown-linux-musl; do
      f="$TMP/vscode-ripgrep-cache-$version/ripgrep-v13.0.0-$release-$arch.tar.gz"
      [ -f "$f" ] || ln -f "$RG_TAR" "$f" 2>/dev/null || cp "$RG_TAR" "$f"
    done
  done
done
cd "$DIR"
[ -f package.json ] || echo '{"name":"firecrest-test-host","private":true}' > package.json
# npm and node-gyp run on the Node that will run code-server, with that Node's headers.
export PATH="$(dirname "$NODE_BIN"):$PATH"
# Where that Node's headers are: beside its binary, or in the platform package the `node`
# devDependency installed (its bin/node is a hard link to that package's binary).
for d in "$NODE_PREFIX" "$NODE_PREFIX"/node_modules/node-linux-*; do
  if [ -f "$d/include/node/node.h" ]; then export npm_config_nodedir="$d"; break; fi
done
log "code-server $CS_VERSION for Node $("$NODE_BIN" --version) ($NODE_BIN)"
# unsafe_perm: code-server's postinstall refuses root otherwise; yes: node-pty's postinstall runs
# `npx node-gyp`, and a `yes=false` npmrc would roll the whole install back.
quiet env npm_config_unsafe_perm=true npm_config_yes=true npm install --no-audit --no-fund --loglevel=error "code-server@$CS_VERSION"
[ -f "$ENTRY" ] || { log "code-server entry point missing after install: $ENTRY"; exit 1; }
touch "$DIR/.complete"
echo "$ENTRY"
