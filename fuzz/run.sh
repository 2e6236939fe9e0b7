#!/usr/bin/env bash
# Run cargo-fuzz targets for a given time each, one after the other.
#
#   fuzz/run.sh SECONDS [TARGET…]      (default: every target in fuzz_targets/)
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# Each target runs with debug assertions (overflow checks) and AddressSanitizer,
# niced, in one libFuzzer process (one core), over its working corpus
# fuzz/corpus/TARGET (git-ignored; new inputs land here) and the committed
# seeds fuzz/seeds/TARGET. Crash, timeout and out-of-memory inputs are
# copied into tests/fuzz-regressions/TARGET/, where tests/fuzz_smoke.rs
# replays them on stable. A summary line per target (executions, time,
# corpus size, findings) is printed and appended to fuzz/runs.log.
# Exit status: 0 when no target found anything, 1 otherwise.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
root=$(cd .. && pwd)

if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
secs=$1
shift
if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    targets=()
    for f in fuzz_targets/*.rs; do targets+=("$(basename "$f" .rs)"); done
fi

nice_cmd=(nice -n 10)
found_any=0
for t in "${targets[@]}"; do
    [[ -f fuzz_targets/$t.rs ]] || { echo "no target $t" >&2; exit 2; }
    mkdir -p "corpus/$t" "artifacts/$t" "$root/tests/fuzz-regressions/$t"
    log="artifacts/$t/run.log"
    dict=()
    [[ -f dict/$t.dict ]] && dict=(-dict="dict/$t.dict")
    before=$(ls "artifacts/$t" | grep -cE '^(crash|timeout|oom|leak)-' || true)
    start=$(date +%s)
    "${nice_cmd[@]}" cargo +nightly fuzz run -O -a "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="artifacts/$t/" "${dict[@]}" \
        >"$log" 2>&1
    status=$?
    elapsed=$(( $(date +%s) - start ))
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
    units=$(ls "corpus/$t" | wc -l)
    new=()
    for a in artifacts/"$t"/{crash,timeout,oom,leak}-*; do
        [[ -f $a ]] || continue
        dest="$root/tests/fuzz-regressions/$t/$(basename "$a")"
        if [[ ! -f $dest ]]; then
            cp "$a" "$dest"
            new+=("$(basename "$a")")
        fi
    done
    after=$(ls "artifacts/$t" | grep -cE '^(crash|timeout|oom|leak)-' || true)
    line="$(date -u +%FT%TZ) $t: ${execs:-?} execs in ${elapsed}s, corpus ${units}, exit ${status}, new findings $((after - before))"
    echo "$line" | tee -a runs.log
    if [[ ${#new[@]} -gt 0 || $status -ne 0 ]]; then
        found_any=1
        for n in "${new[@]}"; do echo "  copied to tests/fuzz-regressions/$t/$n"; done
        grep -m1 -A12 -E '^(thread .* panicked|==[0-9]+==ERROR|ERROR: libFuzzer)' "$log" | sed 's/^/  /'
    fi
done
exit $found_any
