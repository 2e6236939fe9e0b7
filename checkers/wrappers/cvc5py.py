#!/usr/bin/env python3
"""cvc5 from PyPI (the `cvc5` Python bindings) as a command-line SMT-LIB solver.

coreval runs every solver as a program that reads one .smt2 file and prints
its responses on stdout. The Debian cvc5 binary is old (1.0.3); this wrapper
gives the newer PyPI release the same command-line shape:

    cvc5py.py [--OPTION[=VALUE] ...] FILE
    cvc5py.py --version

Options go to Solver.setOption: `--x=v` sets x to v, `--x` sets x to true,
`--no-x` sets x to false. `--tlimit=MS` is mapped to `tlimit-per` because the
API ignores `tlimit`; `--lang=smt2` is accepted and ignored.

Output is what the binary prints: each command's response in order, flushed
after every command, except that the API's `unknown (TIMEOUT)` /
`unknown (INCOMPLETE)` is printed as plain `unknown`. A parse error (the
bindings raise; the message has no file:line) prints
`(error "Parse Error: <message>")` with `"` doubled as SMT-LIB requires, and
exits 1. A bad option prints to stderr and exits 2. Otherwise the exit code
is 0. The process ends with os._exit to skip the bindings' teardown.
"""
import os
import re
import sys

from cliargs import parse_args, smt_string

UNKNOWN_WITH_REASON = re.compile(r"^unknown \([^()\n]*\)$", re.MULTILINE)


def out(text):
    if text:
        os.write(1, text.encode("utf-8", "surrogateescape"))


def finish(code):
    sys.stderr.flush()
    os._exit(code)


def main():
    opts, files = parse_args(sys.argv[1:])
    import cvc5

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    if any(name == "version" for name, _ in opts):
        version = solver.getVersion()
        if isinstance(version, bytes):
            version = version.decode("utf-8", "replace")
        out(f"This is cvc5 version {version} [python bindings]\n")
        finish(0)
    if len(files) != 1:
        sys.stderr.write("usage: cvc5py.py [--OPTION[=VALUE] ...] FILE\n")
        finish(2)
    for name, value in opts:
        if name == "lang":
            continue
        if name == "tlimit":
            name = "tlimit-per"
        try:
            solver.setOption(name, value)
        except Exception as e:  # the bindings raise RuntimeError
            sys.stderr.write(f"cvc5py: error: option --{name}={value}: {e}\n")
            finish(2)

    sm = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, sm)
    try:
        parser.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, files[0])
    except Exception as e:
        out(f"(error {smt_string(str(e))})\n")
        finish(1)
    while True:
        try:
            cmd = parser.nextCommand()
        except Exception as e:
            out(f"(error {smt_string('Parse Error: ' + str(e))})\n")
            finish(1)
        if cmd.isNull():
            break
        try:
            text = cmd.invoke(solver, sm)
        except Exception as e:
            out(f"(error {smt_string(str(e))})\n")
            finish(1)
        out(UNKNOWN_WITH_REASON.sub("unknown", text))
    finish(0)


if __name__ == "__main__":
    main()
