#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""How a change moved the fields of the structs a benchmark touches.

  layout.py BASE CHANGE STRUCT...

BASE and CHANGE are each an object with DWARF (pahole reads it) or
pahole's output.  For each STRUCT whose layout differs: its size and
cache lines on both sides, then the members that moved: first those now
on another cache line (with the members newly sharing it: false sharing
starts there), then those at another offset or size, then those one
side lacks; a line naming the STRUCTs whose layout is the same; a line
naming those a side lacks.  Exit 0; 2, said in one line, when a side
cannot be read (no pahole, no debug information) or has none of the
STRUCTs: a comparison that could not run is never silence.
"""

import re
import subprocess
import sys

LINE = 64
# "TYPE NAME; /* OFFSET SIZE */", a bit field's offset "OFFSET: BIT"
MEMBER = re.compile(r'^\t(?P<decl>[^\t/].*?);\s*/\*\s*(?P<off>\d+)'
                    r'(?::\s*\d+)?\s+(?P<size>\d+)\s*\*/')
CLOSE = re.compile(r'^\t}\s*(?P<name>\w*)[^;]*;\s*/\*\s*(?P<off>\d+)'
                   r'(?::\s*\d+)?\s+(?P<size>\d+)\s*\*/')
SIZE = re.compile(r'/\* size: (\d+), cachelines: (\d+)')


def member_name(decl):
    """The member's name in a declaration: its last identifier, without
    attributes, array bounds and bit widths."""
    decl = re.sub(r'__attribute__\(\(.*\)\)', '', decl)
    decl = re.sub(r'(\[[^]]*\]|:\s*\d+)\s*$', '', decl.strip())
    decl = re.sub(r'\[[^]]*\]', '', decl)
    found = re.findall(r'\w+', decl)
    return found[-1] if found else decl


def parse(text):
    """{struct: (size, [(member, offset, size)])} of pahole's output; an
    unnamed union or struct member is named by its kind and order."""
    structs, name, members, depth, kind = {}, None, [], 0, []
    for line in text.splitlines():
        start = re.match(r'^struct (\w+) \{', line)
        if start and depth == 0:
            name, members, depth = start.group(1), [], 1
            continue
        if name is None:
            continue
        opened = line.count('{') - line.count('}')
        if depth == 1 and opened > 0:
            kind.append(line.split()[0])
        if depth == 1 and opened == 0:
            found = MEMBER.match(line)
            if found:
                members.append((member_name(found['decl']),
                                int(found['off']), int(found['size'])))
        elif depth == 2 and opened < 0:
            found = CLOSE.match(line)
            if found:
                off = int(found['off'])
                members.append((found['name'] or
                                f'<{kind[-1]} {len(kind)}>', off,
                                int(found['size'])))
        depth += opened
        size = SIZE.search(line)
        if size and depth <= 1:
            structs[name] = (int(size.group(1)), members)
            name, depth, kind = None, 0, []
    return structs


def read(path, names):
    """The layouts of NAMES in PATH: pahole's text, or pahole run on an
    object."""
    with open(path, 'rb') as data:
        head = data.read(4)
    if head != b'\x7fELF':
        with open(path, encoding='utf-8', errors='replace') as text:
            found = parse(text.read())
        if not set(names) & set(found):
            raise OSError(f'{path}: none of {", ".join(names)}: layouts not '
                          'compared')
        return found
    try:
        out = subprocess.run(['pahole', '-C', ','.join(names), path],
                             capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise OSError(f'{path}: no pahole (Debian package dwarves): '
                      'layouts not compared') from None
    found = parse(out.stdout)
    if not found:
        raise OSError(f'{path}: pahole found none of {", ".join(names)} '
                      '(no debug information?): layouts not compared')
    return found


def line_of(offset):
    """The cache line an offset is on."""
    return offset // LINE


def moves(old, members):
    """The lines of MEMBERS (the change's) that moved from OLD's places:
    those now on another cache line first."""
    crossed, moved = [], []
    for member, offset, size in members:
        if member not in old or old[member] == (offset, size):
            continue
        was, size_was = old[member]
        if line_of(was) == line_of(offset):
            moved.append(f'  {member}: offset {was} -> {offset}, size '
                         f'{size_was} -> {size}')
            continue
        mates = [m for m, o, _ in members if m != member and
                 line_of(o) == line_of(offset) and m in old and
                 line_of(old[m][0]) != line_of(was)]
        crossed.append(f'  {member}: offset {was} -> {offset}, cache line '
                       f'{line_of(was)} -> {line_of(offset)}' +
                       (f', now with {", ".join(mates)}' if mates else ''))
    return crossed + moved


def diff(name, before, after):
    """The lines saying how struct NAME moved, or none."""
    if before == after:
        return []
    (size_a, mem_a), (size_b, mem_b) = before, after
    old = {m: (o, s) for m, o, s in mem_a}
    new = {m: (o, s) for m, o, s in mem_b}
    return ([(f'struct {name}: {size_a} -> {size_b} bytes, '
              f'{-(-size_a // LINE)} -> {-(-size_b // LINE)} cache lines')] +
            moves(old, mem_b) +
            [f'  {m}: only in the base' for m in old if m not in new] +
            [f'  {m}: only in the change' for m in new if m not in old])


def main(argv):
    """The command line; returns the exit code."""
    if len(argv) < 3:
        print('usage: layout.py BASE CHANGE STRUCT...', file=sys.stderr)
        return 2
    try:
        sides = [read(path, argv[2:]) for path in argv[:2]]
    except OSError as err:
        print(f'layout.py: {err}', file=sys.stderr)
        return 2
    names, same = argv[2:], []
    for name in names:
        if name in sides[0] and name in sides[1]:
            lines = diff(name, sides[0][name], sides[1][name])
            if lines:
                print('\n'.join(lines))
            else:
                same.append(name)
    if same:
        print(f'the same: {" ".join(same)}')
    for side, found in zip(('base', 'change'), sides):
        lacks = [n for n in names if n not in found]
        if lacks:
            print(f'not in the {side}: {" ".join(lacks)}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
