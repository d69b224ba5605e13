#!/usr/bin/env python3
"""bench_gpytorch.py - GPyTorch's Kronecker matmul on the GPU, for comparison
with tools/kronblas-bench.

Times linear_operator's KroneckerProductLinearOperator(F_0, ..., F_{n-1}) @ X
(X of K x m, the LEFT-side GEKMM Y = (F_0 (x) ... (x) F_{n-1}) X) on the same
shapes as kronblas-bench, with CUDA events, warm-up and the median of the
repetitions, and writes a CSV.  Before timing it checks GPyTorch against a
dense torch.kron reference on small shapes, and every timed result with a
randomised identity (Y w against the factors applied one at a time, in
float64, to X w), so a wrong result is never reported as a time.

It can also join its CSV with kronblas-bench's (--join), adding
gpytorch_ms, gpytorch_gflops and speedup_gpytorch (= gpytorch_ms / ms) to
every row of the same shape and type, and print the geometric mean speedup.

  # on the GPU host
  python3 tools/bench_gpytorch.py --shapes standard --type s,d --csv gpytorch.csv
  python3 tools/bench_gpytorch.py --join bench.csv --gpytorch gpytorch.csv --out joined.csv

Shapes are written as for kronblas-bench: M_PxQ^N or M_PxQ,PxQ^N,...
(P contracted, Q produced, M vectors).  FLOPs are kronblas-bench's:
sum_i 2 m K_i q_i, factors applied last first.  FP32 runs with TF32 off
(IEEE FP32, as kronblas' FP32 default).  The join needs no torch.
"""

import argparse
import csv
import math
import re
import statistics
import sys
import time

STANDARD = [
    "1024_8x8^5", "1024_8x8^6", "1024_16x16^4", "1024_16x16^5", "1024_32x32^3",
    "1024_32x32^4", "1024_64x64^2", "1024_64x64^3", "1024_128x128^2", "320_128x128^3",
    "16_8x8^8", "16_16x16^6", "16_32x32^5", "16_64x64^4", "16_128x128^3",
]
CPU = [
    "1024_8x8^5", "1024_16x16^4", "1024_32x32^3", "1024_64x64^2", "16_8x8^6", "16_16x16^5",
    "16_32x32^4", "16_64x64^3", "256_128x128^2", "1024_3x3^7", "1024_6x6^6",
]
REALWORLD = [
    "20_2x2^7", "20_2x2^9", "50_2x2^9", "20_2x2^10", "1_2x2^11",
    "10_52x50,65x20", "50_32x8,64x128", "10_52x65,50x20",
    "4_2x2^9", "8_2x2^9", "16_2x2^9",
    "4_8x8^3", "8_8x8^3", "16_8x8^3", "20_8x8^3",
    "1024_3x3^7", "1024_4x4^7", "1024_6x6^7",
    "1_5x5^3,2x2", "1_5x5^2,2x2,25x25",
    "1526_4x4^6", "156_8x8^3", "2967_4x4^7",
    "16_8x8^8", "16_16x16^6", "16_32x32^6", "16_64x64^3",
]
SETS = {"standard": STANDARD, "cpu": CPU, "realworld": REALWORLD}

# Small shapes for the dense self-check: odd, distinct and non-square factors.
SELF_CHECK = ["6_4x5,3x3,2x4", "16_8x8^3", "3_2x3^4", "5_7x2,1x3,3x3"]

_FACTOR = re.compile(r"^(\d+)[xX](\d+)(?:\^(\d+))?$")


def parse_shape(text):
    """'1024_8x8^5' -> (1024, [(8, 8)] * 5); raises ValueError."""
    head, sep, rest = text.partition("_")
    if not sep or not head.isdigit() or not rest:
        raise ValueError("shape %r: expected M_PxQ^N or M_PxQ,PxQ,..." % text)
    factors = []
    for tok in rest.split(","):
        mt = _FACTOR.match(tok)
        if not mt:
            raise ValueError("shape %r: bad factor %r" % (text, tok))
        p, q, n = int(mt.group(1)), int(mt.group(2)), int(mt.group(3) or 1)
        if n < 1:
            raise ValueError("shape %r: count must be >= 1" % text)
        factors += [(p, q)] * n
    return int(head), factors


def factors_name(factors):
    """Runs compressed as kronblas-bench writes them: 8x8^5, 4x5,3x3."""
    out, i = [], 0
    while i < len(factors):
        j = i
        while j + 1 < len(factors) and factors[j + 1] == factors[i]:
            j += 1
        s = "%dx%d" % factors[i]
        if j > i:
            s += "^%d" % (j - i + 1)
        out.append(s)
        i = j + 1
    return ",".join(out)


def shape_name(m, factors):
    return "%d_%s" % (m, factors_name(factors))


def gekmm_flops(m, factors, complex_type=False):
    """sum_i 2 m K_i q_i, factors applied last first (x4 for complex)."""
    k = 1
    for p, _ in factors:
        k *= p
    flops, cur = 0.0, float(k)
    if k == 0:
        return 0.0
    for p, q in reversed(factors):
        flops += 2.0 * m * cur * q
        cur = cur / p * q
    return flops * (4.0 if complex_type else 1.0)


# ---------------------------------------------------------------- torch part

def _torch_dtype(torch, t):
    return {"s": torch.float32, "d": torch.float64}[t]


def _eps(t):
    return 2.0 ** -24 if t == "s" else 2.0 ** -53


def _sumlen(factors):
    return sum(p + 1 for p, _ in factors) + 2


def _dense(torch, y):
    """A matmul result as a plain tensor (a LinearOperator is densified)."""
    return y if isinstance(y, torch.Tensor) else y.to_dense()


def _kp_matmul(torch, KP, fs, x):
    return _dense(torch, KP(*fs) @ x)


def _apply_sliced(torch, fs, t):
    """(F_0 (x) ... (x) F_{n-1}) t for a vector t, one factor at a time."""
    shape = [f.shape[1] for f in fs]
    t = t.reshape(shape)
    for i, f in enumerate(fs):
        t = torch.movedim(torch.tensordot(f, t, dims=([1], [i])), 0, i)
    return t.reshape(-1)


def self_check(torch, KP, device, gen):
    """GPyTorch against a dense torch.kron reference, elementwise within
    2 * (sum(p+1) + 2) * eps * (|F_0| (x) ... (x) |F_{n-1}|) |X|."""
    ok = True
    for name in SELF_CHECK:
        m, factors = parse_shape(name)
        for t in ("s", "d"):
            dt = _torch_dtype(torch, t)
            fs = [torch.rand(q, p, generator=gen, dtype=torch.float64) * 2 - 1 for p, q in factors]
            k = math.prod(p for p, _ in factors)
            x = torch.rand(k, m, generator=gen, dtype=torch.float64) * 2 - 1
            fs_t = [f.to(dt) for f in fs]
            x_t = x.to(dt)
            dense, absd = fs_t[0].double(), fs_t[0].double().abs()
            for f in fs_t[1:]:
                dense = torch.kron(dense, f.double())
                absd = torch.kron(absd, f.double().abs())
            ref = dense @ x_t.double()
            mag = absd @ x_t.double().abs()
            got = _kp_matmul(torch, KP, [f.to(device) for f in fs_t], x_t.to(device))
            got = got.double().cpu()
            bound = 2.0 * _sumlen(factors) * _eps(t) * mag
            bad = (got - ref).abs() > bound
            if got.shape != ref.shape or bool(bad.any()) or not bool(torch.isfinite(got).all()):
                ok = False
                print("self-check FAILED: %s %s: max |err| %.3g, max bound %.3g"
                      % (name, t, float((got - ref).abs().max()), float(bound.max())), file=sys.stderr)
            else:
                print("self-check ok: %s %s (worst %.3g of the bound)"
                      % (name, t, float(((got - ref).abs() / bound.clamp_min(1e-300)).max())),
                      file=sys.stderr)
    return ok


def identity_check(torch, fs, x, y, t, gen):
    """Y w against the factors applied one at a time to X w, in float64 on
    the device; returns (ok, worst error relative to the bound)."""
    m = x.shape[1]
    w = (torch.rand(m, generator=gen, dtype=torch.float64) * 2 - 1).to(x.device)
    fs64 = [f.double() for f in fs]
    want = _apply_sliced(torch, fs64, x.double() @ w)
    mag = _apply_sliced(torch, [f.abs() for f in fs64], x.double().abs() @ w.abs())
    got = y.double() @ w
    # the contraction with w is exact enough in float64, so the bound is the
    # rounding of each y_r, as in tests/kb_oracle.c's identity check
    bound = 2.0 * (sum(f.shape[1] + 1 for f in fs) + 2) * _eps(t) * mag
    err = (got - want).abs()
    if not bool(torch.isfinite(got).all()):
        return False, math.inf
    ratio = float((err / bound.clamp_min(1e-300)).max())
    return ratio <= 1.0, ratio


def run(args):
    import torch
    import linear_operator
    from linear_operator.operators import KroneckerProductLinearOperator as KP
    try:
        import gpytorch
        gpytorch_version = gpytorch.__version__
    except ImportError:
        gpytorch_version = "-"

    cuda = args.device == "cuda"
    if cuda and not torch.cuda.is_available():
        print("bench_gpytorch: no CUDA device visible to torch", file=sys.stderr)
        return 1
    device = torch.device(args.device)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    gen = torch.Generator().manual_seed(args.seed)
    torch.manual_seed(args.seed)
    devname = torch.cuda.get_device_name(device) if cuda else "cpu (%d threads)" % torch.get_num_threads()
    print("# GPyTorch %s, linear_operator %s, torch %s, CUDA %s, %s, TF32 off, seed %d"
          % (gpytorch_version, linear_operator.__version__, torch.__version__, torch.version.cuda,
             devname, args.seed), file=sys.stderr)

    if not self_check(torch, KP, device, gen):
        print("bench_gpytorch: GPyTorch disagrees with the dense reference; not timing", file=sys.stderr)
        return 1

    out = open(args.csv, "w", newline="") if args.csv not in (None, "-") else sys.stdout
    wr = csv.writer(out)
    wr.writerow(["shape", "m", "factors", "type", "gpytorch_ms", "gpytorch_gflops", "check",
                 "device", "torch", "gpytorch", "linear_operator"])
    status = 0
    print("%-24s %-4s %10s %9s  %s" % ("shape", "type", "ms", "TFLOP/s", "check"), file=sys.stderr)
    for t in args.types:
        dt = _torch_dtype(torch, t)
        for name in args.shapes:
            m, factors = parse_shape(name)
            canon = shape_name(m, factors)
            k = math.prod(p for p, _ in factors)
            ms, gflops, check = "", "", ""
            fs = x = y = kp = None
            try:
                fs = [(torch.rand(q, p, generator=gen, dtype=torch.float64) * 2 - 1).to(device, dt)
                      for p, q in factors]
                x = torch.empty(k, m, device=device, dtype=dt).uniform_(-1, 1)
                kp = KP(*fs)
                y = _dense(torch, kp @ x)
                ok, ratio = identity_check(torch, fs, x, y, t, gen)
                check = ("PASS" if ok else "FAIL") + "(%.3g)" % ratio
                if not ok:
                    status = 1
                else:
                    times = []
                    if cuda:
                        start = torch.cuda.Event(enable_timing=True)
                        stop = torch.cuda.Event(enable_timing=True)
                    for rep in range(args.warmup + args.reps):
                        if cuda:
                            start.record()
                            y = kp @ x
                            stop.record()
                            stop.synchronize()
                            tm = start.elapsed_time(stop)
                        else:
                            t0 = time.perf_counter()
                            y = kp @ x
                            tm = (time.perf_counter() - t0) * 1e3
                        if rep >= args.warmup:
                            times.append(tm)
                    med = statistics.median(times)
                    ms = "%.6g" % med
                    gflops = "%.6g" % (gekmm_flops(m, factors) / (med * 1e-3) / 1e9)
            except RuntimeError as e:   # torch.cuda.OutOfMemoryError is one
                if "out of memory" not in str(e):
                    raise
                check = "oom"
            finally:
                del fs, x, y, kp
                if cuda:
                    torch.cuda.empty_cache()
            wr.writerow([canon, m, factors_name(factors), t, ms, gflops, check, devname,
                         torch.__version__, gpytorch_version, linear_operator.__version__])
            out.flush()
            print("%-24s %-4s %10s %9s  %s" % (canon, t, ms or "-",
                                               "%.3f" % (float(gflops) * 1e-3) if gflops else "-", check),
                  file=sys.stderr)
    if out is not sys.stdout:
        out.close()
    return status


# ---------------------------------------------------------------- join

def join(bench_csv, gpytorch_csv, out_csv):
    """Adds GPyTorch's time to every kronblas-bench row of the same shape and
    type; prints the rows and the geometric mean speedup per type."""
    g = {}
    with open(gpytorch_csv, newline="") as f:
        for row in csv.DictReader(f):
            m, factors = parse_shape(row["shape"])
            g[(shape_name(m, factors), row["type"])] = row
    with open(bench_csv, newline="") as f:
        rd = csv.DictReader(f)
        fields = list(rd.fieldnames or [])
        rows = list(rd)
    if "shape" not in fields or "ms" not in fields:
        raise ValueError("%s is not a kronblas-bench CSV" % bench_csv)
    fields += ["gpytorch_ms", "gpytorch_gflops", "speedup_gpytorch"]
    speedups = {}
    out = open(out_csv, "w", newline="") if out_csv not in (None, "-") else sys.stdout
    wr = csv.DictWriter(out, fieldnames=fields)
    wr.writeheader()
    print("%-24s %-4s %10s %12s %9s" % ("shape", "type", "ms", "gpytorch_ms", "speedup"), file=sys.stderr)
    for row in rows:
        m, factors = parse_shape(row["shape"])
        gr = g.get((shape_name(m, factors), row["type"]))
        row["gpytorch_ms"] = gr["gpytorch_ms"] if gr else ""
        row["gpytorch_gflops"] = gr["gpytorch_gflops"] if gr else ""
        row["speedup_gpytorch"] = ""
        try:
            s = float(row["gpytorch_ms"]) / float(row["ms"])
            row["speedup_gpytorch"] = "%.6g" % s
            speedups.setdefault(row["type"], []).append(s)
        except (ValueError, ZeroDivisionError):
            pass
        wr.writerow(row)
        print("%-24s %-4s %10s %12s %9s" % (row["shape"], row["type"], row["ms"] or "-",
                                            row["gpytorch_ms"] or "-", row["speedup_gpytorch"] or "-"),
              file=sys.stderr)
    if out is not sys.stdout:
        out.close()
    for t, v in sorted(speedups.items()):
        geo = math.exp(sum(math.log(s) for s in v) / len(v))
        print("# %s: geometric mean speedup over GPyTorch %.3fx over %d shapes (min %.3fx, max %.3fx)"
              % (t, geo, len(v), min(v), max(v)), file=sys.stderr)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Time GPyTorch's KroneckerProductLinearOperator @ X on the GPU (same shapes "
                    "and FLOP count as kronblas-bench) and join with kronblas-bench's CSV.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("shape", nargs="*", help="M_PxQ^N or M_PxQ,PxQ^N,... (as kronblas-bench)")
    ap.add_argument("--shapes", default=None, help="named sets, comma list: standard, cpu, realworld")
    ap.add_argument("--type", default="s,d", help="s and/or d (default s,d)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"),
                    help="cuda (default); cpu only to test this script where no GPU is")
    ap.add_argument("--csv", default=None, help="GPyTorch timings CSV to write (- for stdout)")
    ap.add_argument("--join", default=None, metavar="BENCH_CSV", help="kronblas-bench CSV to join with")
    ap.add_argument("--gpytorch", default=None, metavar="CSV",
                    help="GPyTorch CSV for --join (default: the one --csv writes)")
    ap.add_argument("--out", default="-", help="joined CSV (default stdout)")
    args = ap.parse_args(argv)

    args.types = [t for t in args.type.split(",") if t]
    if any(t not in ("s", "d") for t in args.types) or args.warmup < 0 or args.reps < 1:
        ap.error("--type takes s and/or d; --warmup >= 0; --reps >= 1")
    shapes = list(args.shape)
    for s in (args.shapes.split(",") if args.shapes else []):
        if s not in SETS:
            ap.error("unknown shape set %r (standard, cpu, realworld)" % s)
        shapes += SETS[s]
    try:
        for s in shapes:
            parse_shape(s)
    except ValueError as e:
        ap.error(str(e))
    args.shapes = list(dict.fromkeys(shapes))

    status = 0
    if args.shapes:
        if args.csv is None and args.join:
            ap.error("--join with shapes needs --csv FILE for the GPyTorch timings")
        status = run(args)
    elif not args.join:
        ap.error("give shapes (or --shapes) to time, and/or --join BENCH_CSV")
    if args.join and status == 0:
        gcsv = args.gpytorch or args.csv
        if gcsv in (None, "-"):
            ap.error("--join needs --gpytorch CSV (or --csv FILE)")
        status = join(args.join, gcsv, args.out)
    return status


if __name__ == "__main__":
    sys.exit(main())
