#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Model cycles: an estimate, from deterministic event counts, of what
they cost on the deterministic mode's named CPU (Skylake-Server).

  cycles.py [--total] EVENT=COUNT...
                                the estimate and its terms, or its total

The counts are per element (insn, locked, fences, calls, rets, indirect,
string elements, string bytes, l1 misses, ll misses; from callgrind also
mispredicts); a count not given is not counted, never zero, and its
term is said to be missing.  The misses come from cache models (the
QEMU plugin's, data accesses but those of rep string instructions, whose
bytes are their cost; callgrind's), not from hardware.  The
estimate adds, per event, count times cost: a throughput model with no
dependencies, no front end, no overlap of misses.  Its use is the ratio
between paths and the direction and rough size of a change, not a
hardware prediction.

The table is fixed from its sources, never fitted to measured figures:
  insn          0.25   a plain instruction: Skylake renames 4 per cycle
                       (Intel 64 and IA-32 Architectures Optimization
                       Reference Manual, Skylake microarchitecture)
  locked        18     a LOCK-prefixed read-modify-write (uops.info's
                       measured throughput of LOCK ADD/CMPXCHG m64 on
                       Skylake-X: 18 to 19 cycles)
  fences        33     MFENCE (Agner Fog's instruction tables, Skylake)
  calls, rets,  1      a taken branch (Agner Fog's microarchitecture
  indirect             guide: one taken branch per cycle at best)
  string bytes  1/64   rep stos/movs at one 64-byte L1 store per cycle
                       (Skylake-SP's L1D, as AnandTech's Skylake-SP
                       review gives it); the string's elements are not
                       instructions here, TCG counts one per element
  l1 misses     13     an L1 miss that hits the 1 MiB L2 (11-13 cycles)
  ll misses     77     an L2 miss, served by the L3 (77 cycles; both
                       from the same review's cache table)
  mispredicts   16     a mispredicted branch (Agner Fog: 15-20 cycles)
"""

import argparse
import sys

# event: cycles per count; the sources are in the header
TABLE = {
    'insn': 0.25, 'locked': 18, 'fences': 33, 'calls': 1, 'rets': 1,
    'indirect': 1, 'string bytes': 1 / 64, 'l1 misses': 13,
    'll misses': 77, 'mispredicts': 16,
}


def estimate(counts, table=None):
    """(model cycles, {event: (count, cycles)}, [events not counted]) of
    COUNTS, {event: per element}.  A string element is one instruction
    to TCG and none here: its cost is in the bytes."""
    table = table or TABLE
    counts = dict(counts)
    if 'insn' in counts and 'string elements' in counts:
        counts['insn'] -= counts['string elements']
    terms = {e: (counts[e], counts[e] * c) for e, c in table.items()
             if e in counts}
    missing = [e for e in table if e not in counts]
    return sum(c for _, c in terms.values()), terms, missing


def words(counts, table=None):
    """The estimate in one line, its three largest terms after it."""
    total, terms, _ = estimate(counts, table)
    big = sorted(terms.items(), key=lambda kv: -kv[1][1])[:3]
    return (f'{total:.1f} model cycles/elem (estimate; most: '
            + ', '.join(f'{e} {c:.1f}' for e, (_, c) in big) + ')')


def main(argv=None):
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--total', action='store_true')
    parser.add_argument('counts', nargs='+', metavar='EVENT=COUNT')
    args = parser.parse_args(argv)
    try:
        counts = {}
        for arg in args.counts:
            event, _, value = arg.rpartition('=')
            if event not in TABLE and event != 'string elements':
                raise ValueError(f'{event!r} is not an event of the model')
            try:
                counts[event] = float(value)
            except ValueError:
                raise ValueError(f'{arg}: the count is not a number') from None
    except (OSError, ValueError) as err:
        print(f'cycles.py: {err}', file=sys.stderr)
        return 2
    total, terms, missing = estimate(counts)
    if args.total:
        print(f'{total:.4f}')
        return 0
    for event, (count, cost) in terms.items():
        print(f'{event:14} {count:10.3f} x {TABLE[event]:<8.4g} = {cost:9.3f}')
    print(f'{"model cycles":14} {total:31.3f} (an estimate)')
    if missing:
        print('not counted: ' + ', '.join(missing))
    return 0


if __name__ == '__main__':
    sys.exit(main())
