#!/usr/bin/env bash
# Wall time of the bundled example campaign on one machine (`coreval run`)
# and as an N-shard Slurm job array (`coreval slurm submit`, until the final
# merge-and-score job has ended), on the cluster of $SLURM_CONF (start a
# local one with scripts/slurm-up.sh). Prints both times and whether the two
# reports agree on every verdict.
#
#   bash benches/slurm-example.sh [SHARDS=4] [THROTTLE=2]
#
# Uses target/release/coreval (built if missing). The example's early stop is
# turned off in both copies so that the checkers' evidence is deterministic.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shards=${1:-4}
throttle=${2:-2}
: "${SLURM_CONF:?export the SLURM_CONF printed by scripts/slurm-up.sh}"
bin="$here/target/release/coreval"
[ -x "$bin" ] || cargo build --release --manifest-path "$here/Cargo.toml" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export COREVAL_NO_PROGRESS=1

copy() {
  cp -r "$here/examples/campaign" "$tmp/$1"
  rm -rf "$tmp/$1/.cache"
  sed -i 's/early_stop = true/early_stop = false/' "$tmp/$1/campaign.toml"
}
now() { date +%s.%N; }

copy single
t0=$(now)
"$bin" run "$tmp/single" >/dev/null 2>&1 || [ $? = 1 ]
t1=$(now)

copy sharded
"$bin" run "$tmp/sharded" --stage name >/dev/null 2>&1
t2=$(now)
"$bin" slurm submit "$tmp/sharded" --shards "$shards" --throttle "$throttle" 2>/dev/null
until "$bin" slurm status "$tmp/sharded" --json | jq -e '.active == []' >/dev/null; do sleep 0.5; done
t3=$(now)

verdicts() { jq -c '[.solver, .benchmark, .verdict, .checkers]' "$tmp/$1/reports/pairs.jsonl" | sort; }
same=$(cmp -s <(verdicts single) <(verdicts sharded) && echo yes || echo NO)
pairs=$(wc -l <"$tmp/single/reports/pairs.jsonl")
printf 'example campaign, %d pairs\n' "$pairs"
printf '  single machine (coreval run, %d jobs):      %6.1f s\n' "$(nproc)" "$(echo "$t1 - $t0" | bc)"
printf '  %d-shard array %%%d (submit → final score):   %6.1f s (naming before: %.1f s)\n' \
  "$shards" "$throttle" "$(echo "$t3 - $t2" | bc)" "$(echo "$t2 - $t1" | bc)"
printf '  same verdicts and evidence for every pair:  %s\n' "$same"
[ "$same" = yes ]
