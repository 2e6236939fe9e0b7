"""What the Python-binding wrappers (cvc5py.py, bitwuzlapy.py) share: the
command-line option syntax and SMT-LIB string quoting.

`--x=v` sets option x to v, `--x` sets it to true, `--no-x` to false; every
other argument is a file.
"""


def smt_string(msg):
    """An SMT-LIB string literal: `"` doubled."""
    return '"' + msg.replace('"', '""') + '"'


def parse_args(argv):
    opts, files = [], []
    for arg in argv:
        if arg.startswith("--") and len(arg) > 2:
            name, eq, value = arg[2:].partition("=")
            if not eq:
                if name.startswith("no-"):
                    name, value = name[3:], "false"
                else:
                    value = "true"
            opts.append((name, value))
        else:
            files.append(arg)
    return opts, files
