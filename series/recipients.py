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

import functools
import re
import sys

from nipa import arguments, get_maintainer, per_patch, run_in

NETDEV = 'netdev@vger.kernel.org'
FOLD = ',\n    '
# Sections a MAINTAINERS keyword names for text that is not theirs
NOT_OURS = {
    # K: pin_init\b matches ringtest's pthread_spin_init() calls
    'RUST [PIN-INIT]',
}
# "Name <address> (role:SECTION)"; a section's name may have parentheses
ROLE = re.compile(r'^([^<(]*<[^>]*>|\S+) \((.*)\)$')


def recipients(gitdir, commit, patch):
    """[(address, role)] for PATCH, with MAINTAINERS as COMMIT has it."""
    out = get_maintainer(gitdir, commit, patch, '--no-git', '--roles')
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
    gitdir, _, files = arguments(__doc__)
    cover, files = files[0], files[1:]
    commits = run_in(gitdir, 'git', 'rev-list', '--reverse', 'base..HEAD',
                     ok=[0]).stdout.split()
    if len(commits) != len(files):
        sys.exit(f'recipients.py: {len(commits)} commits, '
                 f'{len(files)} patches')
    found = per_patch(functools.partial(recipients, gitdir), commits, files)
    for path, who in zip(files, found):
        address(path, *split(who))
    address(cover, *split([w for who in found for w in who]))


if __name__ == '__main__':
    main()
