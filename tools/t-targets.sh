#!/bin/sh
# t-targets.sh - TAP test of tools/kb_targets.py (which of issues 3 and 4's
# performance targets a kronblas-bench CSV meets): made-up CSVs that meet
# every target, then the same with one value moved just past a bound, a
# column missing, a shape missing; bad files and arguments; and a CSV the
# bench itself wrote, whose columns the script must know.  SKIPs without
# python3.
bench=${top_builddir:-.}/tools/kronblas-bench
tools=${top_srcdir:-.}/tools
script=$tools/kb_targets.py
tmp=${TMPDIR:-/tmp}/t-targets.$$
trap 'rm -f "$tmp".*' EXIT
. "${top_srcdir:-.}/tools/tap.sh"

tap_need python3

echo "1..18"

# mk OUT ISSUE [EDIT...]: a CSV of every shape the issue's targets name,
# each value a little past its bound (so that one edit can miss it); EDIT
# is SHAPE:TYPE:COLUMN=VALUE (VALUE empty: the cell emptied), or
# -SHAPE:TYPE (the row left out), or -COLUMN (the column left out).
mk() {
  python3 - "$tools" "$@" <<'PY'
import csv, sys
tools, out, issue, edits = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
sys.path.insert(0, tools)
from bench_gpytorch import CPU, STANDARD as std, parse_shape
cpu = CPU + ["1_8x8^7"]
cols = ["shape", "m", "factors", "type", "side", "trans", "backend", "threads", "ms", "gflops", "floor_pct",
        "gemm_pct", "baseline_shuffle_ms", "baseline_gemm_ms", "speedup_shuffle", "speedup_gemm", "verify",
        "copy_pct", "calls", "beta", "gpytorch_ms", "gpytorch_gflops", "speedup_gpytorch"]
rows = []
def row(shape, t, backend, **kw):
    r = dict.fromkeys(cols, "")
    r.update(shape=shape, m=shape.split("_")[0], factors=shape.split("_", 1)[1], type=t, side="left",
             trans="NN", backend=backend, threads="2", ms="1", verify="-")
    r.update({k: str(v) for k, v in kw.items()})
    rows.append(r)
if issue == "4":
    for t in ("s", "d"):
        for s in cpu:
            p = max(q for q, _ in parse_shape(s)[1])
            gemm = 85.1 if p >= 32 else 30.1 if s in ("1024_3x3^7", "1024_6x6^6") else 50
            row(s, t, "cpu", floor_pct=60.1 if p <= 16 else 90, gemm_pct=gemm, baseline_shuffle_ms=5.2,
                baseline_gemm_ms=3, speedup_shuffle=5.2, speedup_gemm=3, copy_pct=50.1 if s == "1_8x8^7" else 20)
else:
    for t in ("s", "d"):
        for s in std:
            p = max(q for q, _ in parse_shape(s)[1])
            row(s, t, "cuda", floor_pct=80.1 if p >= 64 else 50.1, baseline_shuffle_ms=1.6, baseline_gemm_ms=1.51,
                speedup_shuffle=1.6, speedup_gemm=1.51, speedup_gpytorch=5.1 if t == "s" else 1.21)
drop_cols = [e[1:] for e in edits if e.startswith("-") and ":" not in e]
for e in edits:
    if e.startswith("-") and ":" in e:
        s, t = e[1:].split(":")
        rows = [r for r in rows if not (r["shape"] == s and r["type"] == t)]
    elif not e.startswith("-"):
        s, t, kv = e.split(":", 2)
        k, v = kv.split("=", 1)
        for r in rows:
            if r["shape"] == s and r["type"] == t:
                r[k] = v
keep = [c for c in cols if c not in drop_cols]
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=keep, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
PY
}

# targets WANT_RC ARGS...: runs the script, output in $tmp.out
targets() {
  tap_run python3 "$@"
}

# case ISSUE WANT_RC [EDIT...]: mk then targets on the result; r its status
case_() {
  f=$tmp.$1.csv
  issue=$1
  want=$2
  shift 2
  mk "$f" "$issue" "$@"
  targets "$want" "$script" "$f"
  r=$?
}

# has STATUS TEXT: a line of that status naming TEXT
has() {
  grep -E "^  $1 +.*$2" "$tmp.out" > /dev/null
}

case_ 4 0
[ "$(grep -c '^  MET ' "$tmp.out")" -eq 6 ] && ! grep -q -E '^  (MISSED|MISSING)' "$tmp.out"
ok $((r + $?)) "issue 4: every target met by values just past their bounds (six lines MET, exit 0)"

case_ 4 1 "1024_64x64^2:d:gemm_pct=84.9"
has MISSED "85% of the in-run GEMM rate: 1024_64x64\\^2 d 84.9%"
ok $((r + $?)) "issue 4: P >= 32 at 84.9% of GEMM is missed, the row named"

case_ 4 1 "16_8x8^6:s:floor_pct=59.9" "1024_3x3^7:s:floor_pct=10"
has MISSED "60% of the roofline floor.*16_8x8\\^6 s 59.9%" && has MET "30% of the in-run GEMM rate"
ok $((r + $?)) "issue 4: P <= 16 at 59.9% of the floor missed; 3x3^7's own target is its GEMM rate, not the floor"

case_ 4 1 "1024_6x6^6:d:gemm_pct=29.9"
has MISSED "1024_6x6\\^6 d 29.9%"
ok $((r + $?)) "issue 4: 6x6^6 at 29.9% of GEMM missed"

case_ 4 1 "16_16x16^5:s:speedup_shuffle=1.99" "1024_8x8^5:s:speedup_shuffle=100"
has MISSED "float geomean .*lowest 1.99x" && has MET "double geomean"
ok $((r + $?)) "issue 4: a row at 1.99x the shuffle misses even with the geomean above 5x"

case_ 4 1 "1_8x8^7:d:copy_pct=49.9"
has MISSED "copy bandwidth: 1_8x8\\^7 d 49.9%"
ok $((r + $?)) "issue 4: m = 1 at 49.9% of copy bandwidth missed"

case_ 4 1 -copy_pct
has MISSING "copy bandwidth: no value for 1_8x8\\^7 s, 1_8x8\\^7 d"
ok $((r + $?)) "issue 4: a CSV without copy_pct (before session 32) leaves the m = 1 target MISSING"

case_ 4 1 "-16_64x64^3:d"
has MISSING "85% of the in-run GEMM rate: no value for 16_64x64\\^3 d"
ok $((r + $?)) "issue 4: a shape missing from the run is MISSING, not MET"

case_ 3 1
[ "$(grep -c '^  MET ' "$tmp.out")" -eq 5 ] && has MISSING "no row of --shapes realworld"
ok $((r + $?)) "issue 3: five targets met; the real-world one MISSING without a realworld run"

case_ 3 1 "1024_16x16^5:s:floor_pct=49.9" "16_128x128^3:s:floor_pct=79.9" "1024_8x8^5:d:speedup_gpytorch=1.19"
has MISSED "P <= 32 .*1024_16x16\\^5 s 49.9%" && has MISSED "P >= 64 .*16_128x128\\^3 s 79.9%" &&
  has MISSED "GPyTorch double: 1024_8x8\\^5 d 1.19x"
ok $((r + $?)) "issue 3: floor 49.9% (P <= 32), 79.9% (P >= 64) and 1.19x GPyTorch double missed"

case_ 3 1 "1024_32x32^3:s:baseline_shuffle_ms=1.49" "1024_8x8^6:s:speedup_gpytorch=1"
has MISSED "1.5x the faster in-run baseline: 1024_32x32\\^3 s 1.49x" && has MISSED "float geomean >= 5x GPyTorch"
ok $((r + $?)) "issue 3: the faster baseline (shuffle 1.49x) counts; one row at 1x GPyTorch pulls the geomean under 5x"

case_ 3 1 -speedup_gpytorch
has MISSING "float geomean >= 5x GPyTorch: no value" && has MISSING "GPyTorch double: no value"
ok $((r + $?)) "issue 3: without GPyTorch's times its two targets are MISSING"

# the real-world target: every shape of the set in the run's types
python3 - "$tmp.r.csv" "$tools" <<'PY'
import csv, sys
sys.path.insert(0, sys.argv[2])
from bench_gpytorch import REALWORLD as rw
w = csv.writer(open(sys.argv[1], "w", newline=""))
w.writerow(["shape", "type", "side", "trans", "backend", "ms", "speedup_shuffle", "speedup_gemm"])
for s in rw:
    if s != "16_32x32^6":
        w.writerow([s, "s", "left", "NN", "cuda", "1", "1.01", {"10_52x50,65x20": "0.997", "20_2x2^7": "1"}.get(s, "1.01")])
PY
targets 1 "$script" "$tmp.r.csv"
r=$?
has MISSED "real-world shapes \\(float\\).*10_52x50,65x20 s 0.997x, 20_2x2\\^7 s 1.000x" && has MISSING "real-world.*no value for 16_32x32\\^6 s"
ok $((r + $?)) "issue 3: real-world rows at 0.997x and exactly 1x a baseline missed (beat, not tie), a shape not run MISSING"

targets 2 "$script" "$tmp.4.csv" "$tmp.3.csv"
r=$?
grep -q "say --issue 3 or 4" "$tmp.out"
ok $((r + $?)) "rows of both backends without --issue: exit 2"

printf 'a,b\n1,2\n' > "$tmp.bad.csv"
targets 2 "$script" "$tmp.bad.csv"
r1=$?
targets 2 "$script" "$tmp.none.csv"
r2=$?
targets 2 "$script" --issue 5 "$tmp.4.csv"
r3=$?
grep -q "issue takes 3 or 4" "$tmp.out"
ok $((r1 + r2 + r3 + $?)) "not a bench CSV, no such file, --issue 5 (said so): exit 2"

# the bench's own CSV: the script reads its columns (copy_pct included)
"$bench" --backend cpu --warmup 0 --reps 1 --threads 1 --type s --csv "$tmp.b.csv" 1_8x8^3 16_4x4^3 > "$tmp.out" 2>&1
r=$?
targets 1 "$script" --issue 4 "$tmp.b.csv"
r2=$?
has MISSING "copy bandwidth: no value for 1_8x8\\^7 s" && ! grep -q Traceback "$tmp.out" &&
  head -n 1 "$tmp.b.csv" | grep -q ',verify,copy_pct,calls,beta$' && grep -q '; one call a timed rep)$' "$tmp.out"
ok $((r + r2 + $?)) "a CSV from kronblas-bench: read, its missing shapes MISSING, its timing named"

# the timing each row was taken with (kronblas-bench --calls) is named
mk "$tmp.c.csv" 3 1024_8x8^5:s:calls=20
targets 1 "$script" "$tmp.c.csv"
r=$?
grep -q 'the mean of 1/20 back-to-back calls (kronblas-bench --calls))$' "$tmp.out"
ok $((r + $?)) "--calls rows: the report says so"

# rows timed with beta != 0 (kronblas-bench --beta) do not count: the
# targets are for beta = 0
mk "$tmp.e.csv" 3 1024_8x8^5:s:beta=1
targets 1 "$script" "$tmp.e.csv"
r=$?
has MISSING "P <= 32 at >= 50% of the roofline floor: no value for 1024_8x8\\^5 s$"
r=$((r + $?))
mk "$tmp.e.csv" 3 1024_8x8^5:s:beta=0
targets 1 "$script" "$tmp.e.csv"
r=$((r + $?))
has MET "P <= 32 at >= 50% of the roofline floor"
ok $((r + $?)) "a row with beta 1 is left out (its shape MISSING), one with beta 0 counts"

exit $failed
