#!/usr/bin/env python3
"""Bitwuzla from PyPI (the `bitwuzla` Python bindings) as a command-line
SMT-LIB solver.

coreval runs every solver as a program that reads one .smt2 file and prints
its responses on stdout. Bitwuzla has no Debian package; its PyPI bindings
contain the SMT-LIB parser, which prints responses itself. This wrapper gives
it the usual command-line shape:

    bitwuzlapy.py [--OPTION[=VALUE] ...] FILE
    bitwuzlapy.py --version

`--tlimit-per=MS` and `--tlimit=MS` set time-limit-per (milliseconds; the
check-sat then answers `unknown`), `--memory=MB` sets memory-limit,
`--seed=N` sets seed; any other `--name=value` / `--name` / `--no-name` goes
to Options.set under Bitwuzla's long option name.

A parse or solver error raises BitwuzlaException ("file:line:col: message");
the wrapper prints it as `(error "<message>")` (`"` doubled) and exits 1,
like the binary. A bad option prints to stderr and exits 2. C++ writes the
responses through C stdio, so every exit flushes C stdio first and then
ends with os._exit, skipping the bindings' teardown.
"""
import ctypes
import os
import sys

from cliargs import parse_args, smt_string

ALIASES = {"tlimit-per": "time-limit-per", "tlimit": "time-limit-per", "memory": "memory-limit"}


def flush_c_stdio():
    sys.stdout.flush()
    try:
        ctypes.CDLL(None).fflush(None)
    except Exception:
        pass


def out(text):
    flush_c_stdio()
    os.write(1, text.encode("utf-8", "surrogateescape"))


def finish(code):
    flush_c_stdio()
    sys.stderr.flush()
    os._exit(code)


def set_option(bw, options, name, value):
    opt = options.option(ALIASES.get(name, name))
    if options.is_bool(opt):
        options.set(opt, value.lower() in ("true", "1", "yes"))
    elif options.is_numeric(opt):
        options.set(opt, int(value))
    else:
        options.set(opt, value)


def main():
    opts, files = parse_args(sys.argv[1:])
    import bitwuzla as bw

    if any(name == "version" for name, _ in opts):
        out(f"Bitwuzla {bw.version()} ({bw.git_id()}) [python bindings]\n")
        finish(0)
    if len(files) != 1:
        sys.stderr.write("usage: bitwuzlapy.py [--OPTION[=VALUE] ...] FILE\n")
        finish(2)
    options = bw.Options()
    for name, value in opts:
        try:
            set_option(bw, options, name, value)
        except Exception as e:
            sys.stderr.write(f"bitwuzlapy: error: option --{name}={value}: {e}\n")
            finish(2)
    parser = bw.Parser(bw.TermManager(), options, "smt2", 16)
    try:
        parser.parse(files[0], False, True)
    except Exception as e:  # BitwuzlaException, or a missing file
        out(f"(error {smt_string(str(e))})\n")
        finish(1)
    finish(0)


if __name__ == "__main__":
    main()
