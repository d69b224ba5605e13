#!/usr/bin/env python3
"""kb_targets.py - which of the performance targets of issues 3 (CUDA) and 4
(CPU) a kronblas-bench run meets, and by how much the others are missed.

    python3 tools/kb_targets.py [--issue 3|4] CSV [CSV ...]

CSV: kronblas-bench --csv files (rows of later files replace rows of the
same shape, type, side and trans in earlier ones), optionally joined with
GPyTorch's times by `tools/bench_gpytorch.py --join` (its speedup_gpytorch
column).  The issue is the one of the rows' backend (cuda: 3, cpu: 4)
unless --issue says.  Only rows of the issue's side and layout (left, NN)
and beta = 0 (the bench's default; --beta rows read Y) count.  One line
per target:

    MET      every row of the target meets it (the closest one is named)
    MISSED   the rows that do not, each with its value
    MISSING  the target's shapes the files do not have (or have without
             the columns it needs: ceilings, baselines, GPyTorch)

Exit status: 0 if every target is MET, 1 if one is MISSED or MISSING,
2 on bad arguments or files.

The targets, as the issues state them:
  issue 3 (float unless said; the 15 standard shapes): each >= 1.5x the
    faster in-run baseline; geomean >= 5x GPyTorch; P >= 64 at >= 80% of
    the roofline floor, P <= 32 at >= 50%; double >= 1.2x GPyTorch double
    on each; the real-world shapes (--shapes realworld) beat both in-run
    baselines.
  issue 4 (both types; the 11 cpu shapes): P >= 32 at >= 85% of the in-run
    GEMM rate; P <= 16 at >= 60% of the floor (1024_3x3^7 and 1024_6x6^6
    have their own target instead: >= 30% of the GEMM rate); geomean >= 5x
    the shuffle baseline and no row below 2x; m = 1 with 8x8^7 at >= 50% of
    the copy bandwidth (column copy_pct).
The shape lists are tools/bench_gpytorch.py's (tools/kb_shapes.c's).
"""
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_gpytorch import CPU, REALWORLD, STANDARD, parse_shape  # noqa: E402 (as tools/kb_shapes.c has them)

CPU_ODD = ["1024_3x3^7", "1024_6x6^6"]
MV = "1_8x8^7"
TYPES = {"s": "float", "d": "double"}


def largest_p(shape):
    """The largest factor height of M_PxQ^N or M_PxQ,PxQ^N,..."""
    return max(p for p, _ in parse_shape(shape)[1])


def num(row, key):
    """The column as a float, None where empty, absent or not a number."""
    try:
        v = float(row.get(key) or "")
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def read_rows(paths):
    rows = {}
    for path in paths:
        with open(path, newline="") as f:
            rd = csv.DictReader(f)
            if not rd.fieldnames or "shape" not in rd.fieldnames or "ms" not in rd.fieldnames:
                raise ValueError("%s is not a kronblas-bench CSV" % path)
            for row in rd:
                if num(row, "beta") not in (None, 0.0):
                    continue
                rows[(row["shape"], row["type"], row.get("side", "left"), row.get("trans", "NN"))] = row
    return rows


class Report:
    def __init__(self):
        self.lines = []
        self.ok = True

    def add(self, status, text):
        if status != "MET":
            self.ok = False
        self.lines.append("  %-8s %s" % (status, text))


def check(rep, what, shapes, rows, value, fmt, bound, strict=False):
    """One per-row target: value(row) >= bound (strict: > bound) for every
    shape (a list of (shape, type) pairs)."""
    have, missing, missed = [], [], []
    for shape, t in shapes:
        row = rows.get((shape, t))
        v = value(row) if row is not None else None
        if v is None:
            missing.append("%s %s" % (shape, t))
            continue
        have.append((v, shape, t))
        if v < bound or (strict and v == bound):
            missed.append((v, shape, t))
    if missed:
        rep.add("MISSED", "%s: %s" % (what, ", ".join("%s %s %s" % (s, t, fmt % v)
                                                        for v, s, t in sorted(missed))))
    if missing:
        rep.add("MISSING", "%s: no value for %s" % (what, ", ".join(missing)))
    if not missed and not missing:
        v, s, t = min(have)
        rep.add("MET", "%s: lowest %s (%s %s)" % (what, fmt % v, s, t))


def geomean_check(rep, what, shapes, rows, value, bound, low=None):
    vals, missing = [], []
    for shape, t in shapes:
        row = rows.get((shape, t))
        v = value(row) if row is not None else None
        if v is None or v <= 0:
            missing.append("%s %s" % (shape, t))
        else:
            vals.append((v, shape, t))
    if missing:
        rep.add("MISSING", "%s: no value for %s" % (what, ", ".join(missing)))
        return
    g = math.exp(sum(math.log(v) for v, _, _ in vals) / len(vals))
    lo = min(vals)
    text = "%s: geomean %.2fx, lowest %.2fx (%s %s)" % (what, g, lo[0], lo[1], lo[2])
    rep.add("MET" if g >= bound and (low is None or lo[0] >= low) else "MISSED", text)


def faster_baseline(row):
    b = [v for v in (num(row, "baseline_shuffle_ms"), num(row, "baseline_gemm_ms")) if v is not None]
    ms = num(row, "ms")
    return min(b) / ms if b and ms else None


def beats_both(row):
    s, g = num(row, "speedup_shuffle"), num(row, "speedup_gemm")
    # the GEMM baseline is n/a for some layouts; the issue's rows have both
    return min(s, g) if s is not None and g is not None else None


def issue3(rows, rep):
    fl = [(s, "s") for s in STANDARD]
    check(rep, "float, each standard shape >= 1.5x the faster in-run baseline", fl, rows, faster_baseline,
          "%.2fx", 1.5)
    geomean_check(rep, "float geomean >= 5x GPyTorch", fl, rows, lambda r: num(r, "speedup_gpytorch"), 5.0)
    check(rep, "float P >= 64 at >= 80% of the roofline floor",
          [(s, "s") for s in STANDARD if largest_p(s) >= 64], rows, lambda r: num(r, "floor_pct"), "%.1f%%", 80.0)
    check(rep, "float P <= 32 at >= 50% of the roofline floor",
          [(s, "s") for s in STANDARD if largest_p(s) <= 32], rows, lambda r: num(r, "floor_pct"), "%.1f%%", 50.0)
    check(rep, "double, each standard shape >= 1.2x GPyTorch double", [(s, "d") for s in STANDARD], rows,
          lambda r: num(r, "speedup_gpytorch"), "%.2fx", 1.2)
    # every real-world shape, in each type a --shapes realworld run gave
    # (rows of only the shapes the standard set shares with it do not count)
    types = sorted({t for (s, t) in rows if s in REALWORLD and s not in STANDARD})
    if types:
        check(rep, "real-world shapes (%s) run and beat both in-run baselines" % ", ".join(TYPES.get(t, t) for t in types),
              [(s, t) for t in types for s in REALWORLD], rows, beats_both, "%.3fx", 1.0, strict=True)
    else:
        rep.add("MISSING", "real-world shapes run and beat both in-run baselines: no row of --shapes realworld")


def issue4(rows, rep):
    both = ["s", "d"]
    big = [(s, t) for t in both for s in CPU if largest_p(s) >= 32]
    small = [(s, t) for t in both for s in CPU if largest_p(s) <= 16 and s not in CPU_ODD]
    odd = [(s, t) for t in both for s in CPU_ODD]
    check(rep, "P >= 32 at >= 85% of the in-run GEMM rate", big, rows, lambda r: num(r, "gemm_pct"), "%.1f%%", 85.0)
    check(rep, "P <= 16 at >= 60% of the roofline floor (3x3^7 and 6x6^6 below)", small, rows,
          lambda r: num(r, "floor_pct"), "%.1f%%", 60.0)
    check(rep, "1024_3x3^7 and 1024_6x6^6 at >= 30% of the in-run GEMM rate", odd, rows,
          lambda r: num(r, "gemm_pct"), "%.1f%%", 30.0)
    for t in both:
        geomean_check(rep, "%s geomean >= 5x the shuffle baseline, no row below 2x" % TYPES[t],
                      [(s, t) for s in CPU], rows, lambda r: num(r, "speedup_shuffle"), 5.0, 2.0)
    check(rep, "m = 1, 8x8^7 at >= 50% of the copy bandwidth", [(MV, t) for t in both], rows,
          lambda r: num(r, "copy_pct"), "%.1f%%", 50.0)


def main(argv):
    issue = None
    paths = []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--issue":
            if i + 1 >= len(argv) or argv[i + 1] not in ("3", "4"):
                print("kb_targets.py: --issue takes 3 or 4", file=sys.stderr)
                return 2
            issue = int(argv[i + 1])
            i += 2
            continue
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a.startswith("-"):
            print("kb_targets.py: unknown option %s (see --help)" % a, file=sys.stderr)
            return 2
        paths.append(a)
        i += 1
    if not paths:
        print("usage: kb_targets.py [--issue 3|4] CSV [CSV ...]", file=sys.stderr)
        return 2
    try:
        allrows = read_rows(paths)
    except (OSError, ValueError, csv.Error) as e:
        print("kb_targets.py: %s" % e, file=sys.stderr)
        return 2
    backends = {r.get("backend") for r in allrows.values()}
    if issue is None:
        if backends == {"cuda"}:
            issue = 3
        elif backends == {"cpu"}:
            issue = 4
        else:
            print("kb_targets.py: rows of backends %s: say --issue 3 or 4" % sorted(b or "?" for b in backends),
                  file=sys.stderr)
            return 2
    want = "cuda" if issue == 3 else "cpu"
    rows = {(s, t): r for (s, t, side, trans), r in allrows.items()
            if side == "left" and trans == "NN" and r.get("backend") == want}
    rep = Report()
    (issue3 if issue == 3 else issue4)(rows, rep)
    calls = sorted({r.get("calls") or "1" for r in rows.values()}, key=lambda c: int(c) if c.isdigit() else 0)
    timing = ("one call a timed rep" if calls == ["1"] else
              "a timed rep = the mean of %s back-to-back calls (kronblas-bench --calls)" % "/".join(calls))
    print("issue %d (%s backend, %d rows of %s; %s)" % (issue, want, len(rows), ", ".join(paths), timing))
    print("\n".join(rep.lines))
    return 0 if rep.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
