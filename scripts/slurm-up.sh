#!/usr/bin/env bash
# Start a private single-node Slurm cluster on this machine, for coreval's
# cluster tests and for trying `coreval slurm` without a real cluster.
#
#   bash scripts/slurm-up.sh [STATE_DIR]      (default: $COREVAL_SLURM_DIR or /tmp/coreval-slurm)
#   export SLURM_CONF=STATE_DIR/slurm.conf    (printed on the last line)
#   bash scripts/slurm-down.sh [STATE_DIR]
#
# - Installs the Debian packages slurmctld slurmd slurm-client munge when
#   they are missing (as root, --no-install-recommends).
# - Needs root (slurmd runs jobs as their submitter) and no systemd: munged,
#   slurmctld and slurmd are started directly, with a private munge key,
#   socket, config, spool, state and logs under STATE_DIR, and their PIDs
#   recorded in STATE_DIR/pids/. Nothing under /etc or /run is touched.
# - Idempotent: when the daemons recorded there are alive and the node
#   answers, it only prints the SLURM_CONF line.
# - Waits (at most $COREVAL_SLURM_WAIT seconds, default 60) until the node is
#   idle. The node advertises $COREVAL_SLURM_CPUS CPUs (default 8, more than
#   exist) and scheduling runs without delay, so small test arrays are fast.
# - Ports: $COREVAL_SLURM_PORT (slurmctld, default 6817) and the next one
#   (slurmd).
set -euo pipefail

state=${1:-${COREVAL_SLURM_DIR:-/tmp/coreval-slurm}}
wait_max=${COREVAL_SLURM_WAIT:-60}
cpus=${COREVAL_SLURM_CPUS:-8}
port=${COREVAL_SLURM_PORT:-6817}

say() { echo "slurm-up: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (slurmd starts jobs as their submitter); try: sudo bash $0 $*"
mkdir -p "$state"
state=$(cd "$state" && pwd)
conf="$state/slurm.conf"
sock="$state/munge/munge.socket"
[ ${#sock} -lt 100 ] || die "state folder path too long for a unix socket (${#sock} bytes, limit 107): $sock"
export SLURM_CONF="$conf"

# --- packages -------------------------------------------------------------
missing=()
for p in slurmctld slurmd slurm-client munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get: install Slurm 22.05+ and munge"
  say "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- already up? ------------------------------------------------------------
alive() { # alive NAME: the recorded daemon is running with our state folder
  local f="$state/pids/$1.pid" pid
  [ -s "$f" ] || return 1
  pid=$(cat "$f")
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$state"
}
node_state() { sinfo -h -N -o '%T' 2>/dev/null | head -n1; }
wait_idle() {
  local t0=$SECONDS s=""
  while [ $((SECONDS - t0)) -lt "$wait_max" ]; do
    s=$(node_state || true)
    case "$s" in
      idle|mixed|allocated) say "node $s after $((SECONDS - t0)) s"; return 0 ;;
    esac
    sleep 0.5
  done
  die "node not idle after ${wait_max} s (state: '${s:-none}'); logs: $state/log/"
}
if alive munged && alive slurmctld && alive slurmd && scontrol ping >/dev/null 2>&1; then
  say "already running ($state)"
  wait_idle
  echo "export SLURM_CONF=$conf"
  exit 0
fi
if alive munged || alive slurmctld || alive slurmd; then
  say "a partial cluster is running; stopping it first"
  bash "$(dirname "${BASH_SOURCE[0]}")/slurm-down.sh" "$state" >&2
fi

# --- private layout -------------------------------------------------------------
mkdir -p "$state"/{munge,ctld,spool,log,pids}
chmod 700 "$state/munge"
if [ ! -s "$state/munge/munge.key" ]; then
  dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
fi
chmod 600 "$state/munge/munge.key"

node=$(slurmd -C | head -n1)                      # NodeName=… CPUs=… RealMemory=…
name=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' <<<"$node")
mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
[ -n "$name" ] && [ -n "$mem" ] || die "cannot read the node description from 'slurmd -C': $node"
user=$(id -un)

cat >"$conf" <<EOF
# Private single-node cluster written by coreval scripts/slurm-up.sh.
ClusterName=coreval
SlurmctldHost=localhost
SlurmUser=$user
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/pids/slurmctld.pid
SlurmdPidFile=$state/pids/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
KillWait=5
MinJobAge=300
MaxArraySize=1001
NodeName=$name CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$name Default=YES MaxTime=INFINITE State=UP
EOF

# --- start, recording PIDs ----------------------------------------------------
rm -f "$state"/pids/*.pid
munged --force --socket="$sock" --key-file="$state/munge/munge.key" \
  --pid-file="$state/pids/munged.pid" --log-file="$state/log/munged.log" \
  --seed-file="$state/munge/munged.seed" \
  || die "munged did not start; see $state/log/munged.log"
slurmctld -f "$conf" || die "slurmctld did not start; see $state/log/slurmctld.log"
slurmd -f "$conf" || die "slurmd did not start; see $state/log/slurmd.log"
for d in munged slurmctld slurmd; do     # daemons write their pid file just after forking
  for _ in $(seq 50); do alive "$d" && break; sleep 0.1; done
  alive "$d" || die "$d is not running; see $state/log/$d.log"
done
say "started munged $(cat "$state/pids/munged.pid"), slurmctld $(cat "$state/pids/slurmctld.pid"), slurmd $(cat "$state/pids/slurmd.pid") in $state"
wait_idle
echo "export SLURM_CONF=$conf"
