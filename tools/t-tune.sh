#!/bin/sh
# t-tune.sh - TAP test of tools/kronblas-tune on the CPU backend: it tunes
# odd and distinct shapes in two types, shows progress, writes a wisdom file
# that a second run merges with and that KRONBLAS_WISDOM_FILE loads (the
# second run measures nothing: every plan is in the file), and refuses bad
# arguments (exit 2) and an unwritable output (exit 1).
tune=${top_builddir:-.}/tools/kronblas-tune
tmp=${TMPDIR:-/tmp}/t-tune.$$
trap 'rm -rf "$tmp".*' EXIT
. "${top_srcdir:-.}/tools/tap.sh"

# run EXPECTED_RC ARGS...: output to $tmp.out, shown as comments
run() {
  tap_run "$tune" "$@"
}

records() { sed -n 's/^records \([0-9]*\)$/\1/p' "$1"; }

echo "1..9"
w=$tmp.wisdom
run 0 --backend cpu --type s,d --output "$w" 16_4x4^3 8_5x3,3x2
ok $? "tunes 2 shapes x 2 types, exit 0"
[ "$(grep -c '^\[[1-4]/4\] .*: tuned in ' "$tmp.out")" -eq 4 ]
ok $? "progress lines [i/4] SHAPE TYPE: tuned in"
head -n 1 "$w" 2>/dev/null | grep -q '^kronblas-wisdom 1$' && grep -q '^backend cpu$' "$w" &&
  [ "$(records "$w")" -eq 4 ] && [ "$(grep -c "$(printf '\t')" "$w")" -eq 4 ]
ok $? "the file: format line, backend cpu, 4 records"

run 0 --backend cpu --type c --output "$w" 16_4x4^3
[ $? -eq 0 ] && [ "$(records "$w")" -eq 5 ]
ok $? "a second run merges: 5 records"

KRONBLAS_WISDOM_FILE=$w KRONBLAS_LOG_LEVEL=info KRONBLAS_LOG_FILE=$tmp.log \
  run 0 --backend cpu --type s,d,c 16_4x4^3
rc=$?
sed 's/^/# log: /' "$tmp.log" 2>/dev/null | grep -v 'tune' | head -n 5
[ $rc -eq 0 ] && grep -q 'imported 5 of 5' "$tmp.log" && ! grep -q 'cpu tune' "$tmp.log"
ok $? "KRONBLAS_WISDOM_FILE: imported at Create, nothing measured again"

run 2 --backend cpu --shapes nosuchset
ok $? "unknown shape set: exit 2"
run 2 --backend cpu 16_4x0
ok $? "bad shape: exit 2"
run 2 --backend cpu
ok $? "no shapes: exit 2"
run 1 --backend cpu --output "$tmp.nodir/w" 8_2x2
ok $? "unwritable output: exit 1"
exit $failed
