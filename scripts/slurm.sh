#!/usr/bin/env bash
# A real single-node Slurm (with accounting) for this project's tests, without systemd.
#
#   scripts/slurm.sh install   apt-get the packages that are missing (CI on a fresh Debian 12)
#   scripts/slurm.sh up        start munged, mariadbd, slurmdbd, slurmctld, slurmd; users, accounts,
#                              the `maint` reservation. Quick no-op when everything already runs.
#   scripts/slurm.sh down      stop exactly the processes `up` started
#   scripts/slurm.sh status    show what runs
#   scripts/slurm.sh reset     down, wipe the controller state and the accounting DB, up
#
# Must run as root. The gateway also runs as root, so it can manage reservations (scontrol
# create/update/delete reservation needs an operator; root is one). Jobs run as alice and bob.
set -euo pipefail

# A leaked SLURM_JWT=daemon makes every Slurm command fail.
unset SLURM_JWT || true

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TEMPLATES="$HERE/slurm"
STATE=/run/firecrest-slurm
LOGS=(/var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log /var/log/slurm/slurmdbd.log /var/log/mysql/firecrest-mariadbd.log)
CLUSTER=localcluster
# With the tools the cluster's commands run: v1's xfer-internal rsync is the real rsync.
PACKAGES=(munge slurm-wlm slurmctld slurmd slurm-client slurmdbd mariadb-server rsync)
# Stop order; `up` starts them in reverse.
DAEMONS=(slurmd slurmctld slurmdbd mariadbd munged)
# The project's apt-get calls take turns on this lock (scripts/install-test-host.sh uses it too).
APT_LOCK=/run/lock/firecrest-apt.lock

log() { printf '[slurm.sh] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

need_root() { [ "$(id -u)" -eq 0 ] || die "run as root"; }

# The pid `up` recorded for a daemon, if that process still runs the expected program
# (guards against a recycled pid).
live_pid() {
  local name=$1 pid comm
  [ -s "$STATE/$name.pid" ] || return 1
  pid=$(cat "$STATE/$name.pid")
  [ -d "/proc/$pid" ] || return 1
  comm=$(cat "/proc/$pid/comm" 2>/dev/null || true)
  [ "$comm" = "$name" ] || return 1
  # Zombies (PID 1 here does not reap) are not running daemons.
  grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null && return 1
  echo "$pid"
}

# Waits up to $2 seconds for a daemon's own pid file, then records the pid in $STATE.
record_pid() {
  local name=$1 pidfile=$2 i pid
  for i in $(seq 1 100); do
    if [ -s "$pidfile" ]; then
      pid=$(cat "$pidfile")
      if [ -d "/proc/$pid" ]; then echo "$pid" >"$STATE/$name.pid"; return 0; fi
    fi
    sleep 0.1
  done
  return 1
}

wait_port() {
  local port=$1 seconds=$2 i
  for i in $(seq 1 $((seconds * 10))); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}

show_logs() {
  local f
  for f in "${LOGS[@]}"; do
    [ -f "$f" ] || continue
    log "--- last lines of $f"
    tail -n 15 "$f" >&2 || true
  done
}

cmd_install() {
  need_root
  # One install at a time: two CI runs started together on a fresh machine wait for each other
  # instead of failing on apt's lock (a foreign apt-get is waited for up to 10 minutes).
  mkdir -p /run/lock
  exec 8>/run/lock/firecrest-slurm-install.lock
  flock 8
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then log "packages already installed"; return 0; fi
  log "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # `8>&-`: a service a package's postinst starts must not inherit (and so hold) the install lock.
  # APT_LOCK: the test host's install (scripts/install-test-host.sh) may run at the same time, and
  # `apt-get update` fails at once on a lists lock another apt-get holds (DPkg::Lock::Timeout
  # waits only for dpkg's); `flock -o` does not pass that lock on to apt-get either.
  flock -o "$APT_LOCK" apt-get -o DPkg::Lock::Timeout=600 update -qq 8>&-
  flock -o "$APT_LOCK" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" 8>&-
}

start_munge() {
  live_pid munged >/dev/null && return 0
  if [ ! -s /etc/munge/munge.key ]; then
    mungekey -c -f -k /etc/munge/munge.key
  fi
  chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  install -d -o munge -g munge -m 0755 /run/munge
  install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
  rm -f /run/munge/munged.pid
  runuser -u munge -- munged
  record_pid munged /run/munge/munged.pid || die "munged did not start"
  munge -n | unmunge >/dev/null || die "munge credential check failed"
}

db_password() {
  # Reuse the password already written to slurmdbd.conf so the DB user and the config agree.
  if [ -s /etc/slurm/slurmdbd.conf ]; then
    sed -n 's/^StoragePass=//p' /etc/slurm/slurmdbd.conf
  else
    head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9'
  fi
}

start_mariadb() {
  live_pid mariadbd >/dev/null && return 0
  install -d -o mysql -g mysql -m 0755 /run/mysqld /var/log/mysql
  if [ ! -d /var/lib/mysql/mysql ]; then
    mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
  fi
  rm -f /run/mysqld/mysqld.pid
  setsid mariadbd --user=mysql --datadir=/var/lib/mysql --socket=/run/mysqld/mysqld.sock \
    --bind-address=127.0.0.1 --pid-file=/run/mysqld/mysqld.pid \
    --log-error=/var/log/mysql/firecrest-mariadbd.log </dev/null >/dev/null 2>&1 &
  record_pid mariadbd /run/mysqld/mysqld.pid || { show_logs; die "mariadbd did not start"; }
  local i
  for i in $(seq 1 100); do
    mariadb -e 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  show_logs; die "mariadbd does not answer"
}

start_slurmdbd() {
  live_pid slurmdbd >/dev/null && return 0
  local pass
  pass=$(db_password)
  mariadb <<SQL
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$pass';
ALTER USER 'slurm'@'localhost' IDENTIFIED BY '$pass';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
SQL
  install -d -m 0755 /etc/slurm
  install -d -o slurm -g slurm -m 0755 /var/log/slurm /run/slurm
  local conf
  conf=$(sed "s/@DBPASS@/$pass/" "$TEMPLATES/slurmdbd.conf.in")
  (umask 077; printf '%s\n' "$conf" >/etc/slurm/slurmdbd.conf)
  chown slurm:slurm /etc/slurm/slurmdbd.conf && chmod 600 /etc/slurm/slurmdbd.conf
  rm -f /run/slurm/slurmdbd.pid
  slurmdbd
  record_pid slurmdbd /run/slurm/slurmdbd.pid || { show_logs; die "slurmdbd did not start"; }
  wait_port 6819 20 || { show_logs; die "slurmdbd is not listening on 6819"; }
}

write_slurm_conf() {
  local host cpus mem
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(( $(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo) - 1024 ))
  [ "$mem" -gt 256 ] || mem=256
  sed -e "s/@HOST@/$host/g" -e "s/@CPUS@/$cpus/g" -e "s/@MEMORY@/$mem/g" \
    "$TEMPLATES/slurm.conf.in" >/etc/slurm/slurm.conf.new
  chmod 644 /etc/slurm/slurm.conf.new
  if cmp -s /etc/slurm/slurm.conf.new /etc/slurm/slurm.conf; then
    rm -f /etc/slurm/slurm.conf.new
    return 1
  fi
  mv /etc/slurm/slurm.conf.new /etc/slurm/slurm.conf
}

ensure_cluster() {
  if ! sacctmgr -nP show cluster format=cluster 2>/dev/null | grep -qx "$CLUSTER"; then
    sacctmgr -i add cluster "$CLUSTER" >/dev/null
  fi
}

start_slurm() {
  install -d -o slurm -g slurm -m 0755 /var/spool/slurmctld /var/log/slurm /run/slurm
  install -d -o root -g root -m 0755 /var/spool/slurmd
  if ! live_pid slurmctld >/dev/null; then
    rm -f /run/slurm/slurmctld.pid
    slurmctld
    record_pid slurmctld /run/slurm/slurmctld.pid || { show_logs; die "slurmctld did not start"; }
  fi
  if ! live_pid slurmd >/dev/null; then
    rm -f /run/slurm/slurmd.pid
    slurmd
    record_pid slurmd /run/slurm/slurmd.pid || { show_logs; die "slurmd did not start"; }
  fi
}

wait_idle() {
  local i state=""
  for i in $(seq 1 300); do
    state=$(sinfo -h -o %t 2>/dev/null | head -n 1 || true)
    case "$state" in
      idle|mix|alloc|resv|maint) return 0 ;;
      down*|drain*) scontrol update NodeName="$(hostname -s)" State=RESUME >/dev/null 2>&1 || true ;;
    esac
    sleep 0.1
  done
  show_logs
  die "the node did not become idle within 30 s (last sinfo state: '${state:-none}')"
}

ensure_users() {
  local u
  for u in alice bob; do
    id "$u" >/dev/null 2>&1 && continue
    if getent group "$u" >/dev/null; then useradd -m -s /bin/bash -g "$u" "$u"
    else useradd -m -s /bin/bash -U "$u"; fi
  done
}

ensure_accounts() {
  local have
  have=$(sacctmgr -nP show assoc format=account,user 2>/dev/null)
  grep -q '^proj|$' <<<"$have" || sacctmgr -i add account proj Description=project Organization=firecrest >/dev/null
  grep -q '^proj2|$' <<<"$have" || sacctmgr -i add account proj2 Description=project2 Organization=firecrest >/dev/null
  grep -q '^proj|alice$' <<<"$have" || sacctmgr -i add user alice Account=proj DefaultAccount=proj >/dev/null
  grep -q '^proj2|alice$' <<<"$have" || sacctmgr -i add user alice Account=proj2 >/dev/null
  grep -q '^proj|bob$' <<<"$have" || sacctmgr -i add user bob Account=proj DefaultAccount=proj >/dev/null
  # QOS `capped` admits no job: `#SBATCH --qos=capped` produces a real "accounting/QOS policy" refusal.
  sacctmgr -nP show qos format=name | grep -qx capped || sacctmgr -i add qos capped MaxSubmitJobsPerUser=0 >/dev/null
  sacctmgr -nP show assoc where user=alice,bob format=qos | grep -qv capped \
    && sacctmgr -i modify user where name=alice,bob set qos+=capped >/dev/null
  return 0
}

ensure_reservation() {
  scontrol show reservation maint >/dev/null 2>&1 && return 0
  # Three days ahead so the systems tree shows a reservation that never blocks test jobs.
  local start
  start=$(date -d '+3 days' +%Y-%m-%dT%H:%M:%S)
  scontrol create reservation ReservationName=maint StartTime="$start" Duration=04:00:00 \
    Nodes=ALL Users=root Flags=MAINT >/dev/null
}

all_running() {
  local d
  for d in "${DAEMONS[@]}"; do live_pid "$d" >/dev/null || return 1; done
  sinfo -h -o %t >/dev/null 2>&1
}

cmd_up() {
  need_root
  command -v slurmctld >/dev/null || die "Slurm is not installed: run scripts/slurm.sh install"
  install -d -m 0755 "$STATE"
  if all_running; then
    # A changed template is applied in place; everything else is already set up.
    if write_slurm_conf; then scontrol reconfigure && log "slurm.conf changed: reconfigured"; fi
    log "already running"
    return 0
  fi
  ensure_users
  start_munge
  start_mariadb
  write_slurm_conf || true
  start_slurmdbd
  ensure_cluster
  start_slurm
  wait_idle
  ensure_accounts
  ensure_reservation
  log "up: $(sinfo -h -o '%P %t %D' | tr '\n' ' ')"
}

cmd_down() {
  need_root
  local d pid i
  for d in "${DAEMONS[@]}"; do
    if pid=$(live_pid "$d"); then
      kill -TERM "$pid" 2>/dev/null || true
      for i in $(seq 1 150); do
        live_pid "$d" >/dev/null || break
        sleep 0.1
      done
      if live_pid "$d" >/dev/null; then
        log "$d ($pid) ignored SIGTERM for 15 s: killing it"
        kill -KILL "$pid" 2>/dev/null || true
      fi
      log "stopped $d ($pid)"
    fi
    rm -f "$STATE/$d.pid"
  done
}

# A clean slate: job ids restart at 1, so the accounting database must go too (old rows would
# otherwise be matched to the new jobs).
cmd_reset() {
  need_root
  cmd_down
  install -d -m 0755 "$STATE"
  start_munge
  start_mariadb
  mariadb -e 'DROP DATABASE IF EXISTS slurm_acct_db'
  rm -rf /var/spool/slurmctld/* /var/spool/slurmd/*
  cmd_up
}

cmd_status() {
  local d pid rc=0
  for d in "${DAEMONS[@]}"; do
    if pid=$(live_pid "$d"); then printf '%-10s running (pid %s)\n' "$d" "$pid"
    else printf '%-10s stopped\n' "$d"; rc=3; fi
  done
  if [ $rc -eq 0 ]; then
    sinfo -o '%P %a %l %D %t %N' || rc=3
    scontrol show reservation -o 2>/dev/null || true
  fi
  return $rc
}

case "${1:-}" in
  install) cmd_install ;;
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  reset) cmd_reset ;;
  *) echo "usage: $0 install|up|down|status|reset" >&2; exit 2 ;;
esac
