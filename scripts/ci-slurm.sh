#!/usr/bin/env bash
# Slurm shared by the CI runs on one machine (a second `.ci/run` beside the first is how CI is
# tested under load). A developer's running Slurm is left alone. One that a CI run started is
# stopped by the last CI run to leave. Each run signs in under $FIRECREST_CI_STATE, under a lock.
#
#   scripts/ci-slurm.sh join RUN_PID    start Slurm unless it answers; record RUN_PID as a user
#   scripts/ci-slurm.sh leave RUN_PID   sign RUN_PID out; the last one out stops a CI-started Slurm
#
# A run that was killed cannot sign out: a RUN_PID whose process is gone counts as out.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
STATE=${FIRECREST_CI_STATE:-/run/firecrest-ci}
SLURM_SH=${FIRECREST_CI_SLURM_SH:-$here/slurm.sh}
LOCK_WAIT=${FIRECREST_CI_LOCK_WAIT:-900}

say() { echo "[ci-slurm] $*"; }

[ $# -eq 2 ] && [[ $1 == join || $1 == leave ]] && [[ $2 =~ ^[0-9]+$ ]] || { echo "usage: $0 join|leave RUN_PID" >&2; exit 2; }
cmd=$1 run=$2
mkdir -p "$STATE/runs"

# The lock is fd 9 of this process only. Everything started under it gets fd 9 closed (`9>&-`):
# a daemon that inherited it would hold the lock for as long as it lives, and the next `leave`
# would wait for ever (the CI that timed out after its tests had passed).
exec 9>"$STATE/lock"
flock -w "$LOCK_WAIT" 9 || { say "$cmd: no lock on $STATE/lock within ${LOCK_WAIT}s (a process that inherited it still runs?): Slurm left as it is"; exit 1; }

case "$cmd" in
  join)
    if bash "$SLURM_SH" status >/dev/null 2>&1 9>&-; then
      if [ -e "$STATE/slurm-started-by-ci" ]; then say "Slurm up (started by another CI run here)"; else say "Slurm already running: leaving it as it is"; fi
    else
      say "Slurm up"
      bash "$SLURM_SH" up 9>&-
      touch "$STATE/slurm-started-by-ci"
    fi
    touch "$STATE/runs/$run"
    ;;
  leave)
    rm -f "$STATE/runs/$run"
    for f in "$STATE/runs/"*; do
      [ -e "$f" ] || continue
      kill -0 "${f##*/}" 2>/dev/null || rm -f "$f"
    done
    if [ ! -e "$STATE/slurm-started-by-ci" ]; then
      :
    elif [ -n "$(ls -A "$STATE/runs")" ]; then
      say "Slurm left up: another CI run here still uses it"
    else
      say "Slurm down"
      bash "$SLURM_SH" down 9>&- || true
      rm -f "$STATE/slurm-started-by-ci"
    fi
    ;;
esac
