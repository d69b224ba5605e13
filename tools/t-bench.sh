#!/bin/sh
# t-bench.sh - TAP test of tools/kronblas-bench on the CPU backend: every
# type, both sides, X contiguous along K and along m, conjugated factors,
# odd and distinct shapes, with --verify (oracle and randomised identity)
# and the OpenBLAS baselines (when built with OpenBLAS), whose results the
# bench checks against kronblas'.  Also the CSV and the argument errors.
# The bench's own output is passed through as TAP comments; its seed is on
# the first of those lines (rerun with KRONBLAS_TEST_SEED=... to reproduce).
bench=${top_builddir:-.}/tools/kronblas-bench
tmp=${TMPDIR:-/tmp}/t-bench.$$
trap 'rm -f "$tmp".*' EXIT
. "${top_srcdir:-.}/tools/tap.sh"

# run NAME EXPECTED_RC ARGS...: runs the bench, output to $tmp.out
run() {
  shift
  tap_run "$bench" "$@"
}

# rows NAME COUNT: the output has COUNT PASS rows and nothing failed
rows_pass() {
  p=$(grep -c ' PASS$' "$tmp.out")
  f=$(grep -c -E ' FAIL$|MISMATCH|FAILS|kronblas failed' "$tmp.out")
  [ "$p" -eq "$1" ] && [ "$f" -eq 0 ]
}

echo "1..15"

shapes="6_4x5,3x3,2x4 3_3x2^3 16_4x4^4 5_17x3,2x9"
for side in left right; do
  for trans in NN TC; do
    run x 0 --backend cpu --verify --no-ceilings --warmup 0 --reps 1 --type s,d,c,z \
      --side $side --trans $trans $shapes
    r=$?
    rows_pass 16
    ok $((r + $?)) "$side $trans: 4 shapes x 4 types verified, baselines agree"
  done
done

# K*L = 2^30 is beyond the explicit oracle: the randomised identity checks it
run x 0 --backend cpu --verify --no-baselines --warmup 0 --reps 1 --type s,z 2_32x32^3
r=$?
rows_pass 2
ok $((r + $?)) "identity check on 2_32x32^3"
grep -q 'verify: identity' "$tmp.out"
ok $? "the identity (not the oracle) was used"

run x 0 --backend cpu --no-baselines --warmup 0 --reps 1 --type s,d --csv "$tmp.csv" 8_2x3,4x2 1_3x3^2
r=$?
head -n 1 "$tmp.csv" | grep -qx 'shape,m,factors,type,side,trans,backend,threads,ms,gflops,floor_pct,gemm_pct,baseline_shuffle_ms,baseline_gemm_ms,speedup_shuffle,speedup_gemm,verify,copy_pct,calls,beta'
h=$?
sed 's/^/# csv: /' "$tmp.csv"
[ "$(wc -l < "$tmp.csv")" -eq 5 ] && grep -q '^"8_2x3,4x2",8,"2x3,4x2",d,left,NN,cpu,' "$tmp.csv" &&
  [ "$(grep -c ',1,0$' "$tmp.csv")" -eq 4 ]
ok $((r + h + $?)) "CSV header and rows (calls 1 on CPU rows, beta 0)"

# --beta: kronblas reads Y; verified from Y = 0, and the baselines are
# checked against one call from Y = 0 after the timed calls (which added
# into Y: without that call they disagree, exit 1)
run x 0 --backend cpu --beta 1 --verify --warmup 1 --reps 3 --type s,z --csv "$tmp.b.csv" 6_4x5,3x3,2x4 16_4x4^4
r=$?
rows_pass 4
p=$?
grep -q '^# beta 1: kronblas reads Y' "$tmp.out" && [ "$(grep -c ',1,1$' "$tmp.b.csv")" -eq 4 ]
ok $((r + p + $?)) "--beta 1: rows verified, baselines agree, the header and the CSV say beta 1"
run x 2 --backend cpu --beta x 4_2x2
r=$?
grep -q -- '--beta wants a finite number' "$tmp.out"
r=$((r + $?))
run x 2 --backend cpu --beta inf 4_2x2
ok $((r + $?)) "--beta x, --beta inf: exit 2 with the reason"

# --rounds: medians over rounds, each with its own ceilings; verified in
# the first, baselines in the last
run x 0 --backend cpu --verify --rounds 2 --warmup 0 --reps 1 --type s,d 6_4x5,3x3,2x4 16_4x4^4
r=$?
rows_pass 4
p=$?
grep -q '^# 2 rounds per row' "$tmp.out"
h=$?
# With ceilings (OpenBLAS), every row has a gemm% of at most its floor%
# (the floor is the larger of the FLOPs' and the bytes' time).
# ... and the header names the OpenBLAS kernels that gave them.
g=0
if grep -q '^# ceilings' "$tmp.out"; then
  grep -q '^# OpenBLAS core [A-Za-z]' "$tmp.out" || g=1
  awk '/ PASS$/ { n++; f = $6; e = $7; sub(/%$/, "", f); sub(/%$/, "", e);
                  if ($7 !~ /%$/ || e + 0 > f + 0.05) bad = 1 }
       END { exit bad || n != 4 }' "$tmp.out" || g=1
fi
run x 2 --backend cpu --rounds 0 4_2x2
ok $((r + p + h + g + $?)) "--rounds 2: rows verified, gemm% <= floor%, the rounds and the OpenBLAS core noted; --rounds 0: exit 2"

run x 2 --backend cpu --calls 0 4_2x2
r=$?
grep -q -- '--calls wants a count >= 1' "$tmp.out"
r=$((r + $?))
run x 0 --backend cpu --calls 3 --no-baselines --warmup 0 --reps 1 --csv "$tmp.c.csv" 4_2x2
r=$((r + $?))
grep -q '^# --calls 3 ignored: CPU calls are synchronous' "$tmp.out" && [ "$(tail -n 1 "$tmp.c.csv" | cut -d, -f19)" = 1 ]
ok $((r + $?)) "--calls 0: exit 2 with the reason; --calls 3 on the CPU: said to be ignored, the CSV says 1"
run x 2 --backend cpu
ok $? "no shapes: exit 2"
run x 2 --backend cpu 12_3x
ok $? "bad shape: exit 2"
run x 2 --type q 4_2x2
r=$?
run x 2 --trans NX 4_2x2
ok $((r + $?)) "bad --type, bad --trans: exit 2"
run x 0 --help
r=$?
grep -q 'floor = max(FLOPs / GEMM rate' "$tmp.out"
ok $((r + $?)) "--help explains the floor"

exit $failed
