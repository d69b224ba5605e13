#!/usr/bin/env python3
"""plot_perf.py - TFLOP/s per shape for kronblas and each baseline, from a
kronblas-bench CSV (optionally joined with GPyTorch's by bench_gpytorch.py),
as a PNG with one panel per element type.

  python3 tools/plot_perf.py joined.csv -o doc/perf-h100.png --title "H100, kronblas <commit>"

Rates are FLOPs / median time with kronblas-bench's FLOP count
(sum_i 2 m K_i q_i, x4 for complex), so every bar of a shape divides the
same work.  Bars are left out where a time is missing (not run, n/a,
baseline mismatch).  --gflops plots GFLOP/s instead (CPU runs).
"""

import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_gpytorch import gekmm_flops, parse_shape  # noqa: E402  (no torch needed)

SERIES = [
    ("ms", "kronblas"),
    ("baseline_shuffle_ms", "shuffle (GEMM + transpose)"),
    ("baseline_gemm_ms", "per-factor batched GEMM"),
    ("gpytorch_ms", "GPyTorch"),
]
TYPE_NAMES = {"s": "float", "d": "double", "c": "complex float", "z": "complex double"}


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "shape" not in rows[0] or "ms" not in rows[0]:
        raise SystemExit("plot_perf: %s is not a kronblas-bench CSV" % path)
    return rows


def rate(row, col, scale):
    try:
        ms = float(row.get(col) or "")
    except ValueError:
        return None
    if not ms > 0:
        return None
    m, factors = parse_shape(row["shape"])
    return gekmm_flops(m, factors, row["type"] in ("c", "z")) / (ms * 1e-3) / scale


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="kronblas-bench CSV(s), joined or not")
    ap.add_argument("-o", "--out", default="perf.png", help="PNG to write (default perf.png)")
    ap.add_argument("--title", default="", help="figure title (GPU, date, commit)")
    ap.add_argument("--gflops", action="store_true", help="GFLOP/s instead of TFLOP/s")
    args = ap.parse_args(argv)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for path in args.csv for r in load(path)]
    types = [t for t in ("s", "d", "c", "z") if any(r["type"] == t for r in rows)]
    series = [(c, n) for c, n in SERIES if any(r.get(c) for r in rows)]
    scale, unit = (1e9, "GFLOP/s") if args.gflops else (1e12, "TFLOP/s")

    fig, axes = plt.subplots(len(types), 1, figsize=(max(8, 0.9 * len(rows) / max(1, len(types)) + 3),
                                                     4.2 * len(types)), squeeze=False)
    width = 0.8 / max(1, len(series))
    for ax, t in zip(axes[:, 0], types):
        trows = [r for r in rows if r["type"] == t]
        x = range(len(trows))
        for i, (col, name) in enumerate(series):
            vals = [rate(r, col, scale) for r in trows]
            xs = [xi + (i - (len(series) - 1) / 2) * width for xi, v in zip(x, vals) if v is not None]
            ys = [v for v in vals if v is not None]
            if ys:
                ax.bar(xs, ys, width, label=name)
        ax.set_xticks(list(x))
        ax.set_xticklabels([r["shape"] for r in trows], rotation=45, ha="right", fontsize=8)
        ax.set_ylabel(unit)
        side = trows[0].get("side", "")
        trans = trows[0].get("trans", "")
        ax.set_title("%s (%s side, %s)" % (TYPE_NAMES.get(t, t), side, trans), fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print("plot_perf: wrote %s (%d rows, %s)" % (args.out, len(rows), ", ".join(n for _, n in series)),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
