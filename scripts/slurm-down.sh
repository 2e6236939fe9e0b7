#!/usr/bin/env bash
# Stop the private Slurm cluster started by scripts/slurm-up.sh.
#
#   bash scripts/slurm-down.sh [STATE_DIR] [--purge]
#
# Cancels the jobs still queued on it, then stops slurmd, slurmctld and
# munged by the PIDs recorded in STATE_DIR/pids/ (each checked to be the
# daemon started with this state folder: never by name), SIGTERM first and
# SIGKILL after 10 s. Idempotent: nothing running is not an error.
# --purge also removes STATE_DIR (config, logs, saved state).
set -euo pipefail

state=${COREVAL_SLURM_DIR:-/tmp/coreval-slurm}
purge=0
for arg in "$@"; do
  case "$arg" in
    --purge) purge=1 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) state=$arg ;;
  esac
done
say() { echo "slurm-down: $*" >&2; }
if [ ! -d "$state" ]; then
  say "nothing to stop ($state does not exist)"
  exit 0
fi
state=$(cd "$state" && pwd)
export SLURM_CONF="$state/slurm.conf"

ours() { # ours NAME -> prints the PID when the recorded daemon runs with our state folder
  local f="$state/pids/$1.pid" pid
  [ -s "$f" ] || return 1
  pid=$(cat "$f")
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$state" && echo "$pid"
}

# Jobs first, so that slurmd can end their steps while it still runs.
if pid=$(ours slurmctld) && [ -f "$SLURM_CONF" ]; then
  jobs=$(squeue -h -o '%A' 2>/dev/null || true)
  if [ -n "$jobs" ]; then
    say "cancelling jobs: $(echo $jobs)"
    # shellcheck disable=SC2086
    scancel $jobs 2>/dev/null || true
    for _ in $(seq 40); do
      [ -z "$(squeue -h -o '%A' 2>/dev/null || true)" ] && break
      sleep 0.25
    done
  fi
fi

for d in slurmd slurmctld munged; do
  if pid=$(ours "$d"); then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      say "$d ($pid) ignored SIGTERM; SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    say "stopped $d ($pid)"
  fi
  rm -f "$state/pids/$d.pid"
done

if [ "$purge" = 1 ]; then
  rm -rf "$state"
  say "removed $state"
fi
