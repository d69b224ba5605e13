#!/bin/sh
# t-ncu-source.sh - TAP test of tools/ncu_source.py (an Nsight Compute
# per-instruction export summed by stall reason, opcode and instruction)
# on a made-up export whose shares are known, gzipped and not; a file with
# no such table or without its stall_ columns, a missing file and bad
# arguments exit 2.  SKIPs without python3.
script=${top_srcdir:-.}/tools/ncu_source.py
tmp=${TMPDIR:-/tmp}/t-ncu-source.$$
trap 'rm -f "$tmp".*' EXIT
. "${top_srcdir:-.}/tools/tap.sh"

tap_need python3

echo "1..10"

# Three instructions, 200 samples: long_sb 100 (80 on the branch), mio 60,
# selected 40; the FFMA holds 60 samples, the LDS 40, the BRA 100.
cat > "$tmp.csv" <<'CSV'
"Kernel Name","void k<(int)2>(args)",
"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)","stall_long_sb","stall_mio","stall_selected","stall_long_sb (Not Issued)"
"0x7f0000000010","FFMA R1, R2, R3, R1","60","20","20","0","40","0"
"0x7f0000000020","LDS.128 R4, [R5]","40","40","0","40","0","0"
"0x7f0000000030","@P0   BRA 0x7f0000000050","100","100","80","20","0","0"
CSV

run() { python3 "$script" "$@" > "$tmp.out" 2>&1; rc=$?; sed 's/^/# /' "$tmp.out"; return $rc; }
has() { grep -q -- "$1" "$tmp.out"; }

run "$tmp.csv"
ok $? "a made-up export is read"
has "samples: 200 over 3 instructions" && has "kernel: void k<(int)2>(args)"
ok $? "it counts the samples and names the kernel"
has "^long_sb  *50.0%" && has "^mio  *30.0%" && has "^selected  *20.0%"
ok $? "the reasons' shares (long_sb 50%, mio 30%, selected 20%)"
grep -A1 "^opcode" "$tmp.out" | grep -q "^BRA  *50.0%  *40.0%"
ok $? "the branch first among opcodes, with its 40% of long_sb"
grep -A1 "^long_sb: the instructions" "$tmp.out" | grep -q "40.00%  000030  @P0 BRA"
ok $? "the branch first among the instructions that hold long_sb"

gzip -c "$tmp.csv" > "$tmp.csv.gz"
python3 "$script" --top 1 --reasons 1 "$tmp.csv.gz" > "$tmp.gz.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^long_sb  *50.0%" "$tmp.gz.out" && ! grep -q "^mio: the instructions" "$tmp.gz.out"
ok $? "a gzipped export, --top 1 --reasons 1"

printf 'a,b\n1,2\n' > "$tmp.bad"
run "$tmp.bad"
[ $? -eq 2 ] && has "no per-instruction table"
ok $? "a CSV without the table exits 2"
head -n 2 "$tmp.csv" | sed 's/"stall_/"x_/g' > "$tmp.nostall"
run "$tmp.nostall"
[ $? -eq 2 ] && has "lacks 'Address' or the stall_ columns"
ok $? "a table without stall_ columns exits 2"
run "$tmp.missing"
ok $(( $? != 2 )) "a missing file exits 2"
run --top 0 "$tmp.csv"
[ $? -eq 2 ] && has "usage"
ok $? "bad arguments exit 2 with the usage"

exit $failed
