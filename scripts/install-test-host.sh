#!/usr/bin/env bash
# Installs the test host: code-server 4.100.3 (= VS Code 1.100.3, the last release that runs on
# Node 20) into a cache outside the repository, and Debian's Chromium for Playwright to drive.
# Idempotent: returns at once when everything is already there. Prints the code-server entry point.
# Under a lock (flock on the cache folder); apt-get/dpkg/npm output goes to <cache>/install.log.
set -euo pipefail

CS_VERSION="${CODE_SERVER_VERSION:-4.100.3}"
CACHE="${FIRECREST_TEST_HOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/firecrest-vscode}"
DIR="$CACHE/code-server-$CS_VERSION"
ENTRY="$DIR/node_modules/code-server/out/node/entry.js"
PKGS=(build-essential python3 pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep)
# The browser is for the test suites; `npm start` serves VS Code to the user's own browser.
[ "${FIRECREST_SKIP_BROWSER:-}" = 1 ] || PKGS+=(chromium)

log() { echo "[install-test-host] $*" >&2; }

# One install at a time: two `npm start`s (or a start and a test run) wait for each other instead
# of writing the same cache folder together.
mkdir -p "$CACHE"
exec 9>"$CACHE/.install.lock"
if ! flock -n 9; then
  log "another install into $CACHE is running; waiting for it"
  flock 9
fi
# What apt-get, dpkg and npm print goes to a log file; the terminal gets one line per step, and
# the log's tail when a step fails.
LOG="$CACHE/install.log"
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
# @vscode/ripgrep's postinstall downloads ripgrep unless its cache already holds the archive;
# feed it Debian's rg instead (same TMPDIR as the install).
TMP="${TMPDIR:-/tmp}"
RG_CACHE="$TMP/vscode-ripgrep-cache-1.15.11"
mkdir -p "$RG_CACHE"
for arch in x86_64-unknown-linux-musl aarch64-unknown-linux-musl; do
  f="$RG_CACHE/ripgrep-v13.0.0-10-$arch.tar.gz"
  [ -f "$f" ] || tar czf "$f" -C /usr/bin rg
done
cd "$DIR"
[ -f package.json ] || echo '{"name":"firecrest-test-host","private":true}' > package.json
# unsafe_perm: code-server's postinstall refuses root otherwise; yes: node-pty's postinstall runs
# `npx node-gyp`, and a `yes=false` npmrc would roll the whole install back.
quiet env npm_config_unsafe_perm=true npm_config_yes=true npm install --no-audit --no-fund --loglevel=error "code-server@$CS_VERSION"
[ -f "$ENTRY" ] || { log "code-server entry point missing after install: $ENTRY"; exit 1; }
touch "$DIR/.complete"
echo "$ENTRY"
