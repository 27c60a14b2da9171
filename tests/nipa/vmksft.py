#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""NIPA's VM executor, contest/remote/vmksft-p.py, run here on one tree.

usage: vmksft.py NIPA TREE OUT CPUS [--built]

Calls vmksft-p's test() from the NIPA checkout NIPA as its daemon does for
a branch: NIPA's kernel build (make mrproper; vng -v -b -f each target's
config), 'make headers', the selftests built in TREE, the programs listed
from an installed kselftest-list.txt, each run in a virtme-ng guest of
CPUS vCPUs by 'make run_tests' with TEST_PROGS set, and classified. Only
the configuration is this script's: the targets net/bench and ptr_ring
with nested tests, virtme-ng without KVM (this machine's /dev/kvm cannot
run a guest), KSFT_MACHINE_SLOW as NIPA's slowdown sets it, and a boot
timeout for TCG. --built: TREE's kernel was built by that same build
already (a stamp NIPA cannot see), which is not repeated. Writes
OUT/results.json, the cases test() returns, and OUT/results/ (NIPA's
logs); prints the JSON.
"""

import configparser
import datetime
import importlib.util
import json
import os
import sys
import types


def main():
    """NIPA's test() on the arguments' tree"""
    if len(sys.argv) not in (5, 6) or sys.argv[5:] not in ([], ['--built']):
        sys.exit(__doc__.split('\n\n', 2)[1])
    nipa, tree, out = (os.path.abspath(a) for a in sys.argv[1:4])
    cpus = sys.argv[4]
    # vmksft-p imports 'core' (NIPA's top) and 'lib' (contest/remote's)
    sys.path[:0] = [os.path.join(nipa, 'contest', 'remote'), nipa]
    spec = importlib.util.spec_from_file_location(
        'vmksft_p', os.path.join(nipa, 'contest', 'remote', 'vmksft-p.py'))
    vmksft = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(vmksft)
    if sys.argv[5:] == ['--built']:
        vmksft.VM.build = lambda self, *args, **kwargs: True

    config = configparser.ConfigParser()
    config.read_dict({
        'executor': {'name': 'vmksft-p-here', 'deadline_minutes': '120'},
        'local': {'base_path': out, 'results_path': 'results',
                  'json_path': 'json', 'tree_path': tree},
        'www': {'url': 'file://' + out},
        'env': {'paths': ''},
        'ksft': {'target': 'net/bench ptr_ring', 'nested_tests': 'on'},
        'vm': {'virtme_opt': '--disable-kvm', 'cpus': cpus,
               'init_prompt': '# ',
               'default_timeout': '60', 'boot_timeout': '600',
               'slowdown': '1',
               # bash 5.1's bracketed paste wraps the output NIPA reads
               # the exit code from in escapes
               'setup': "bind 'set enable-bracketed-paste off'"},
        'cfg': {'thread_cnt': '1'},
    })

    # What test() reads of NIPA's lib.CbArg: the configuration, fixed here
    cbarg = types.SimpleNamespace(config=config, refresh_config=lambda: None)
    now = datetime.datetime.now(datetime.UTC).isoformat()
    cases = vmksft.test({'date': now}, {'run-cookie': 'run'}, cbarg)
    with open(os.path.join(out, 'results.json'), 'w', encoding='utf-8') as results:
        json.dump(cases, results, indent=1)
    print(json.dumps(cases, indent=1))


if __name__ == '__main__':
    main()
