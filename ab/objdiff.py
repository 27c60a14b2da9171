#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The functions whose built code differs between two kernel builds.

  objdiff.py BASE_KDIR CHANGE_KDIR

Prints "OBJECT FUNCTION" for each function of a compiled object (.o,
built-in or module) whose code differs or that one side lacks.  Code is
compared as objdump -dr prints it without addresses, relocations by
symbol: a function that only moved within its object is the same.  Data
is not compared; the objects every build changes (vmlinux.o, the image,
the version and kallsyms objects) have no code of their own.  An object
of the same size and modification time on both sides (the change's
build starts from a copy of the base's) is not read.
"""

import filecmp
import os
import re
import subprocess
import sys

# Objects made of other objects or of the image: every function in them
# is compared where it was compiled
AGGREGATE = re.compile(r'(^|/)(vmlinux\.o|\.tmp_[^/]*|\.vmlinux\.[^/]*)$'
                       r'|^arch/[^/]+/boot/')
FUNCTION = re.compile(r'^[0-9a-f]+ <(.+)>:$')
ADDRESS = re.compile(r'^\s*[0-9a-f]+:\s*|\b[0-9a-f]+ (?=<)')


def objects(kdir):
    """{relative path: os.stat} of the compiled objects under KDIR."""
    found = {}
    for root, _, files in os.walk(kdir):
        for name in files:
            if name.endswith('.o'):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, kdir)
                if not AGGREGATE.search(rel):
                    found[rel] = os.stat(path)
    return found


def functions(path):
    """{function: its code without addresses} of one object."""
    if not os.path.exists(path):
        return {}
    text = subprocess.run(['objdump', '-dr', '--no-show-raw-insn', path],
                          capture_output=True, text=True, check=True).stdout
    code, name = {}, None
    for line in text.splitlines():
        start = FUNCTION.match(line)
        if start:
            name = start.group(1)
            code[name] = []
        elif name and line.strip():
            code[name].append(ADDRESS.sub('', line))
    return {n: '\n'.join(lines) for n, lines in code.items()}


def changed(base, change):
    """Sorted (object, function) whose code differs."""
    before, after = objects(base), objects(change)
    found = []
    for rel in sorted(set(before) | set(after)):
        one, other = before.get(rel), after.get(rel)
        if one and other and one.st_size == other.st_size and (
                one.st_mtime_ns == other.st_mtime_ns or
                filecmp.cmp(os.path.join(base, rel),
                            os.path.join(change, rel), shallow=False)):
            continue
        old = functions(os.path.join(base, rel))
        new = functions(os.path.join(change, rel))
        found += [(rel, f) for f in sorted(set(old) | set(new))
                  if old.get(f) != new.get(f)]
    return found


def main(argv):
    """The command line; returns the exit code."""
    if len(argv) != 2 or not all(os.path.isdir(d) for d in argv):
        print('usage: objdiff.py BASE_KDIR CHANGE_KDIR (two build '
              'directories)', file=sys.stderr)
        return 2
    try:
        for rel, func in changed(*argv):
            print(rel, func)
    except (OSError, subprocess.CalledProcessError) as err:
        print(f'objdiff.py: {err}', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
