#!/usr/bin/env python3
"""Figures of a bench/learn-sim-all.sh directory, or two compared.

Usage: bench/learn-sim-diff.py DIR            the figures of one sweep
       bench/learn-sim-diff.py BEFORE AFTER   a RESULTS-style table per
                                              group, the totals, and the
                                              rows that moved
Environment: MOVED (0.3): the points a row's first or second run must
move by to be listed; TOP (40): at most that many of them.
Reads learn-sim.sh's rows: | law | shape | baseline | best (k) |
auto (k) | auto vs best | 2nd vs best | auto vs baseline | epochs |.
"""
import os
import sys

LISTS = ['L33', 'L34', 'L35', 'L36', 'L40']
FILES = {'3.md': 'N=64', '4.md': 'N=32', '9.md': 'N=16', '10.md': 'N=12',
         '11.md': 'N=20', 'c2.md': '2 cores'}


def load(d):
    rows = {}
    for root, _, files in os.walk(d):
        for f in sorted(files):
            if not f.endswith('.md'):
                continue
            rel = os.path.relpath(os.path.join(root, f), d)
            with open(os.path.join(root, f)) as fh:
                for line in fh:
                    c = [x.strip() for x in line.split('|')]
                    if len(c) < 10 or '%' not in c[6]:
                        continue
                    try:
                        first = float(c[6].split()[0])
                        second = float(c[7].split()[0])
                        base = float(c[8].split()[0])
                    except ValueError:
                        continue
                    rows[(rel, c[1], c[2])] = (first, second, base)
    if not rows:
        sys.exit(f"learn-sim-diff.py: no rows of learn-sim.sh in {d}")
    return rows


def group(rel):
    d, f = os.path.split(rel)
    if d == 'sets' or d not in LISTS or f not in FILES:
        return (0, 'the 9 sets')
    return (1 + LISTS.index(d) * 10 + list(FILES).index(f),
            f"§{d[1:]}'s laws, {FILES[f]}")


def stats(R, ks):
    f = [R[k][0] for k in ks]
    s = [R[k][1] for k in ks]
    return (sum(x <= 10 for x in f), max(f), sum(x <= 3 for x in s), max(s),
            sum(f) / len(f), sum(s) / len(s),
            sum(R[k][2] > 0.05 for k in ks),
            sum(R[k][0] > 10 for k in ks if k[0].endswith('/9.md')),
            sum(R[k][1] > 3 for k in ks if k[0].endswith('/9.md')),
            sum(R[k][0] > 10 for k in ks if partial(k[0])),
            sum(R[k][1] > 3 for k in ks if partial(k[0])))


def partial(rel):
    """A row of sets 10 and 11 of a list: N=12 and 20, partial waves."""
    return rel.endswith('/10.md') or rel.endswith('/11.md')


def totals(name, t, n):
    print(f"{name}: {n} rows; firsts within 10 % {t[0]}, seconds within "
          f"3 % {t[2]}, mean first {t[4]:+.2f} %, mean second {t[5]:+.2f} %, "
          f"worst first {t[1]:+.1f} %, worst second {t[3]:+.1f} %, slower "
          f"than baseline {t[6]}; N=16: firsts over 10 % {t[7]}, seconds "
          f"over 3 % {t[8]}; N=12 and 20: firsts over 10 % {t[9]}, "
          f"seconds over 3 % {t[10]}")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    A = load(sys.argv[1])
    if len(sys.argv) == 2:
        totals(sys.argv[1], stats(A, list(A)), len(A))
        return
    B = load(sys.argv[2])
    ks = [k for k in A if k in B]
    if len(ks) < len(A) or len(ks) < len(B):
        print(f"(rows in one only: {len(A) - len(ks)} before, "
              f"{len(B) - len(ks)} after; compared: {len(ks)})")
    groups = {}
    for k in ks:
        groups.setdefault(group(k[0]), []).append(k)
    print("| set | within 10 % | worst | 2nd within 3 % | worst 2nd "
          "| mean 1st / 2nd |")
    print("|---|---|---|---|---|---|")
    for g in sorted(groups):
        a, b = stats(A, groups[g]), stats(B, groups[g])
        print(f"| {g[1]} ({len(groups[g])}) | {a[0]} -> {b[0]} | "
              f"{a[1]:+.1f} -> {b[1]:+.1f} % | {a[2]} -> {b[2]} | "
              f"{a[3]:+.1f} -> {b[3]:+.1f} % | {a[4]:+.2f} -> {b[4]:+.2f} / "
              f"{a[5]:+.2f} -> {b[5]:+.2f} % |")
    print()
    totals(sys.argv[1], stats(A, ks), len(ks))
    totals(sys.argv[2], stats(B, ks), len(ks))
    th = float(os.environ.get('MOVED', '0.3'))
    moved = [k for k in ks if abs(B[k][0] - A[k][0]) > th or
             abs(B[k][1] - A[k][1]) > th]
    moved.sort(key=lambda k: -(abs(B[k][0] - A[k][0]) +
                               abs(B[k][1] - A[k][1])))
    print(f"\nrows moved by more than {th} point: {len(moved)} "
          "(!: taken past 10 % first or 3 % second; +: brought within)")
    for k in moved[:int(os.environ.get('TOP', '40'))]:
        a, b = A[k], B[k]
        flag = ('!' if a[0] <= 10 < b[0] or a[1] <= 3 < b[1] else
                '+' if b[0] <= 10 < a[0] or b[1] <= 3 < a[1] else ' ')
        print(f"{flag} {k[0]:10s} {k[1]:14s} {k[2]:8s} first {a[0]:+6.1f} "
              f"-> {b[0]:+6.1f} %, second {a[1]:+6.1f} -> {b[1]:+6.1f} %, "
              f"vs baseline {a[2]:+6.1f} -> {b[2]:+6.1f} %")


main()
