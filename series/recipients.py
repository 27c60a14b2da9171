#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Address the exported patches as a netdev posting is addressed.

usage: series/recipients.py GITDIR TREE OUTDIR

GITDIR is a repository series.sh import made (tag 'base', then one commit
per patch), TREE the pristine kernel tree, OUTDIR the patch files.
Each patch gets To: and Cc: headers from scripts/get_maintainer.pl run on
it against MAINTAINERS as that patch leaves it (what NIPA's cc_maintainers
runs in the tree the patch is applied to): maintainers and supporters in
To:, reviewers and lists in Cc:, and netdev, whose patchwork has to see
every patch of a net-next series; not a section that a MAINTAINERS
keyword names for code that is not its own (NOT_OURS: the patch's notes
say so). The cover letter goes to all of them.
git send-email sends each file to the addresses in its headers.
git history is not used (--no-git-fallback): a source package has none.
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
    """git ARGS's output in GITDIR."""
    return subprocess.run(['git', '-C', gitdir] + list(args),
                          check=True, capture_output=True).stdout


def get_maintainer(tree, maintainers, patch):
    """[(address, role)] for PATCH, with MAINTAINERS given as bytes."""
    with tempfile.NamedTemporaryFile(suffix='MAINTAINERS') as mfile:
        mfile.write(maintainers)
        mfile.flush()
        out = subprocess.run(
            ['perl', 'scripts/get_maintainer.pl', '--mpath', mfile.name,
             '--no-git', '--no-git-fallback', '--roles', patch],
            cwd=tree, check=True, capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        role = ROLE.match(line.strip())
        if role and not any(f':{s}:Keyword:' in role.group(2)
                            for s in NOT_OURS):
            found.append(role.groups())
    return found


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


def header(name, addrs):
    """A NAME: header of ADDRS, folded one a line; none for no ADDRS."""
    return f'{name}: {FOLD.join(addrs)}\n' if addrs else ''


def address(path, to_, cc_):
    """Add To: and Cc: after the Subject: header (and its folded lines)."""
    with open(path, encoding='utf-8') as file:
        head, sep, body = file.read().partition('\n\n')
    if re.search(r'^(To|Cc):', head, re.MULTILINE):
        sys.exit(f'recipients.py: {path} is addressed already')
    with open(path, 'w', encoding='utf-8') as file:
        file.write(head + '\n' + (header('To', to_) + header('Cc', cc_))
                .rstrip('\n') + sep + body)


def main():
    """The command line."""
    if len(sys.argv) != 4:
        sys.exit(__doc__.split('\n\n')[1])
    gitdir, tree, out = sys.argv[1], sys.argv[2], sys.argv[3]
    files = sorted(glob.glob(os.path.join(out, '[0-9][0-9][0-9][0-9]-*.patch')))
    cover, files = files[0], files[1:]
    commits = git(gitdir, 'rev-list', '--reverse', 'base..HEAD').split()
    if len(commits) != len(files):
        sys.exit(f'recipients.py: {len(commits)} commits, '
                 f'{len(files)} patches')

    def one(i):
        text = git(gitdir, 'show', b'%s:MAINTAINERS' % commits[i])
        return get_maintainer(tree, text, files[i])

    with ThreadPoolExecutor(os.cpu_count()) as pool:
        found = list(pool.map(one, range(len(files))))
    for path, who in zip(files, found):
        address(path, *split(who))
    address(cover, *split([w for who in found for w in who]))


if __name__ == '__main__':
    main()
