#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A job's record, JOB/record.json: what the runner's phases found for a
target (target, src, tree, kdir, kernel, root, job), as JSON so that any
path reads back as it was written.

usage: record.py write KEY=VALUE...  the record, on stdout
       record.py get KEY             KEY's value in the record on stdin,
                                     empty when it has none
"""

import json
import sys


def main(argv):
    """write or get, as the usage says"""
    if argv[:1] == ['write'] and all('=' in kv for kv in argv[1:]):
        json.dump(dict(kv.split('=', 1) for kv in argv[1:]), sys.stdout,
                  indent=1)
        print()
    elif len(argv) == 2 and argv[0] == 'get':
        print(json.load(sys.stdin).get(argv[1], ''))
    else:
        sys.exit(__doc__.split('\n\n', 1)[1].rstrip())


if __name__ == '__main__':
    main(sys.argv[1:])
