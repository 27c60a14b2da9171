#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Address the exported patches as a netdev posting is addressed.

usage: series/recipients.py GITDIR OUTDIR

GITDIR: a repository series.sh import made (tag 'base', a commit per
patch); OUTDIR: the patch files. Each patch gets To: (maintainers and
supporters) and Cc: (reviewers, lists, and netdev, whose patchwork has to
see every patch of a net-next series) from get_maintainer.pl as NIPA's
cc_maintainers runs it, with MAINTAINERS as that patch leaves it; not a
section a MAINTAINERS keyword names for code not its own (NOT_OURS: the
patch's notes say so). The cover letter goes to all of them.
"""

import glob
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

NETDEV = 'netdev@vger.kernel.org'
FOLD = ',\n    '
# Sections a MAINTAINERS keyword names for text that is not theirs
NOT_OURS = {
    # K: pin_init\b matches ringtest's pthread_spin_init() calls
    'RUST [PIN-INIT]',
}
# "Name <address> (role:SECTION)"; a section's name may have parentheses
ROLE = re.compile(r'^([^<(]*<[^>]*>|\S+) \((.*)\)$')


def git(gitdir, *args):
    """git ARGS' output in GITDIR (bytes), or the reason it failed."""
    proc = subprocess.run(['git', '-C', gitdir, *args], capture_output=True,
                          check=False)
    if proc.returncode:
        sys.exit(f"recipients.py: git {' '.join(args)}: "
                 f"{proc.stderr.decode().strip()}")
    return proc.stdout


def recipients(gitdir, commit, patch):
    """[(address, role)] for PATCH, with MAINTAINERS as COMMIT has it (as
    NIPA's cc_maintainers runs get_maintainer.pl), no git history."""
    with tempfile.NamedTemporaryFile() as mpath:
        mpath.write(git(gitdir, 'show', commit + ':MAINTAINERS'))
        mpath.flush()
        proc = subprocess.run(
            ['perl', 'scripts/get_maintainer.pl', '--mpath', mpath.name,
             '--no-git', '--no-git-fallback', '--roles', '--', patch],
            cwd=gitdir, capture_output=True, text=True, check=False)
    if proc.returncode:
        sys.exit(f'recipients.py: get_maintainer.pl {patch}: '
                 f'{proc.stderr.strip()}')
    out = proc.stdout
    roles = (ROLE.match(line.strip()) for line in out.splitlines())
    return [role.groups() for role in roles if role and not any(
        f':{s}:Keyword:' in role.group(2) for s in NOT_OURS)]


def split(found):
    """(To, Cc): maintainers and supporters, then everyone else."""
    to_, cc_ = [], []
    for addr, role in found:
        want = to_ if role.startswith(('maintainer', 'supporter')) else cc_
        if addr not in to_ + cc_:
            want.append(addr)
    if not any(NETDEV in a for a in to_ + cc_):
        cc_.append(NETDEV)
    return to_, cc_


def address(path, to_, cc_):
    """Add To: and Cc: (none without addresses), one address a line, after
    the Subject: header (and its folded lines)."""
    with open(path, encoding='utf-8') as file:
        head, sep, body = file.read().partition('\n\n')
    if re.search(r'^(To|Cc):', head, re.MULTILINE):
        sys.exit(f'recipients.py: {path} is addressed already')
    added = ''.join(f'{name}: {FOLD.join(addrs)}\n'
                    for name, addrs in (('To', to_), ('Cc', cc_)) if addrs)
    with open(path, 'w', encoding='utf-8') as file:
        file.write(head + '\n' + added.rstrip('\n') + sep + body)


def main():
    """The command line."""
    if len(sys.argv) != 3:
        sys.exit(__doc__.split('\n\n')[1])
    gitdir, pdir = (os.path.abspath(a) for a in sys.argv[1:])
    cover, *files = sorted(glob.glob(os.path.join(
        pdir, '[0-9][0-9][0-9][0-9]-*.patch')))
    commits = git(gitdir, 'rev-list', '--reverse', 'base..HEAD').split()
    if len(commits) != len(files):
        sys.exit(f'recipients.py: {len(commits)} commits, '
                 f'{len(files)} patches')
    # get_maintainer.pl takes a core
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        found = list(pool.map(lambda c, f: recipients(gitdir, c.decode(), f),
                              commits, files))
    for path, who in zip(files, found):
        address(path, *split(who))
    address(cover, *split([w for who in found for w in who]))


if __name__ == '__main__':
    main()
