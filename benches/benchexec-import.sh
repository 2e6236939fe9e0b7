#!/usr/bin/env bash
# Importing BenchExec runs at scale (`bash benches/benchexec-import.sh [N]`,
# default N = 20000, coreval built first with `cargo build --release`): a
# campaign of N three-assertion benchmarks whose one solver is a BenchExec
# result file of N runs (`.xml.bz2`, logs in a `.logfiles.zip`), generated
# here, against the same campaign whose solver is an instant command that
# prints the same answer and core. It times the solve stage both ways (the
# import against N process runs), and a solve with nothing to do after each
# (the result file read, matched and hashed on every load). Prints seconds
# and the ratio import / command.
set -euo pipefail
n="${1:-20000}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
coreval="$repo/target/release/coreval"
[ -x "$coreval" ] || { echo "build first: cargo build --release" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$n" <<'EOF'
import bz2, os, sys, zipfile
work, n = sys.argv[1], int(sys.argv[2])
for camp in ("import", "command"):
    d = os.path.join(work, camp, "benchmarks", "QF_LIA", "f")
    os.makedirs(d)
    for i in range(n):
        with open(os.path.join(d, f"b{i}.smt2"), "w") as f:
            f.write("(set-info :status unsat)\n(set-logic QF_LIA)\n(declare-const x Int)\n"
                    f"(assert (! (> x {i + 5}) :named smtcomp0))\n(assert (! (< x 3) :named smtcomp1))\n"
                    "(assert (! (> x 0) :named smtcomp2))\n(check-sat)\n")
res = os.path.join(work, "import", "res")
os.makedirs(res)
runs = []
for i in range(n):
    p = f"../benchmarks/QF_LIA/f/b{i}.smt2"
    runs.append(f'  <run name="{p}" files="[{p}]">\n    <column title="cputime" value="0.01s"/>\n'
                '    <column title="memory" value="19820544B"/>\n    <column title="status" value="false"/>\n'
                '    <column title="walltime" value="0.02s"/>\n    <column title="returnvalue" value="0" hidden="true"/>\n  </run>\n')
xml = ('<?xml version="1.0" encoding="utf-8"?>\n<result benchmarkname="uc" tool="Z3" version="5.4.0" '
       'toolmodule="benchexec.tools.z3" timelimit="20s" memlimit="1000000000B" options="" block="uc" name="z3.uc">\n'
       + "".join(runs) + "</result>\n")
with open(os.path.join(res, "uc.2026-01-01_00-00-00.results.z3.uc.xml.bz2"), "wb") as f:
    f.write(bz2.compress(xml.encode()))
log = "z3 FILE\n\n" + "-" * 80 + "\n\nunsat\n(smtcomp1 smtcomp0)\n"
with zipfile.ZipFile(os.path.join(res, "uc.2026-01-01_00-00-00.logfiles.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    for i in range(n):
        z.writestr(f"uc.2026-01-01_00-00-00.logfiles/z3.b{i}.smt2.log", log)
head = ('benchmarks = "benchmarks"\njobs = 2\n[naming]\nnamed_policy = "keep"\n[limits]\ntime = 20.0\n'
        '[check]\npolicy = "smtcomp-2025"\n[score]\nrules = "smtcomp-2025"\n')
with open(os.path.join(work, "import", "campaign.toml"), "w") as f:
    f.write(head + '[[solver]]\nname = "z3"\nbenchexec = "res/uc.2026-01-01_00-00-00.results.z3.uc.xml.bz2"\n')
solver = os.path.join(work, "instant.sh")
with open(solver, "w") as f:
    f.write("#!/bin/sh\nprintf 'unsat\\n(smtcomp1 smtcomp0)\\n'\n")
os.chmod(solver, 0o755)
with open(os.path.join(work, "command", "campaign.toml"), "w") as f:
    f.write(head + f'[[solver]]\nname = "z3"\ncommand = ["{solver}", "{{file}}"]\n')
EOF
# Wall seconds of a command (its output dropped).
secs() {
  python3 -c 'import subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(f"{time.monotonic() - t:.3f}")' "$@"
}
for camp in import command; do
  "$coreval" run --stage name "$work/$camp" >/dev/null 2>&1
done
imp=$(secs "$coreval" run --stage solve "$work/import")
cmd=$(secs "$coreval" run --stage solve "$work/command")
imp0=$(secs "$coreval" run --stage solve "$work/import")
cmd0=$(secs "$coreval" run --stage solve "$work/command")
records=$(wc -l < "$work/import/runs.jsonl")
echo "$n benchmarks; $records runs imported"
echo "solve, BenchExec import:        ${imp} s"
echo "solve, instant command:         ${cmd} s"
echo "ratio import / command:         $(python3 -c "print(f'{$imp / $cmd:.3f}')")"
echo "solve, nothing to do (import):  ${imp0} s"
echo "solve, nothing to do (command): ${cmd0} s"
