#!/bin/sh
# device-ncu.sh - Nsight Compute on one launch of a row's model plan, on a
# GPU machine, in a tree tools/device-run.sh (or device-ab.sh) already
# built: speed of light, scheduler and warp-state statistics with their
# stall reasons, occupancy, instruction counts.  What it is for: telling
# latency from bandwidth from instruction mix in one call (session 33's
# slice-GEMM kernel: 62% of issue slots busy, two warps a scheduler).
#
#   tools/device-ncu.sh [--type s|d] [--skip N] [--tune] [--source] SHAPE KERNEL
#                                                          (run in the built tree)
#
# KERNEL is matched against the kernels' base names (ncu -k regex:KERNEL,
# e.g. kb_gemm, kb_row, kb_fast); --skip N passes over the first N
# launches that match (default 0).  The clocks are left as found
# (--clock-control none).  The whole report goes to $OUT (or /tmp/kb-out)
# as ncu-SHAPE.txt ('^' written '_'); the lines that matter are printed.
# --tune profiles a launch of the tuner's (KRONBLAS_TUNE=1) instead of the
# model plan's, for kernels only the tuner runs.  --source takes the
# warp-state samples per instruction instead (SourceCounters), writes
# Nsight's per-instruction table as src-SHAPE.csv.gz and prints
# tools/ncu_source.py's summary of it (where python3 is): which
# instructions hold each stall reason (session 41: quad8's long-scoreboard
# stalls were its output code's, not its loads').
set -u
type=s
skip=0
tune=0
source=0
while [ $# -gt 2 ]; do
  case $1 in
  --type) type=$2; shift 2 ;;
  --skip) skip=$2; shift 2 ;;
  --tune) tune=1; shift ;;
  --source) source=1; shift ;;
  *) break ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: $0 [--type s|d] [--skip N] [--tune] [--source] SHAPE KERNEL" >&2
  exit 2
fi
out=${OUT:-/tmp/kb-out}
mkdir -p "$out"
bench=./tools/kronblas-bench
[ -x "$bench" ] || { echo "$0: run it in a built tree ($bench not found)" >&2; exit 2; }
command -v ncu > /dev/null 2>&1 || PATH=/usr/local/cuda/bin:$PATH
f=$out/ncu-$(echo "$1" | tr '^' '_').txt

if [ $source -eq 1 ]; then
  rep=${TMPDIR:-/tmp}/kb-ncu-src.$$
  src=$out/src-$(echo "$1" | tr '^' '_').csv
  KRONBLAS_TUNE=$tune ncu --clock-control none -k "regex:$2" --launch-skip "$skip" -c 1 \
    --section WarpStateStats --section SourceCounters -o "$rep" \
    "$bench" --backend cuda --type "$type" --reps 1 --warmup 0 --no-baselines --no-ceilings "$1" > "$f" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then
    ncu -i "$rep.ncu-rep" --page source --csv --print-source sass > "$src" 2>> "$f"
    rc=$?
  fi
  rm -f "$rep.ncu-rep"
  if [ $rc -eq 0 ] && command -v python3 > /dev/null 2>&1; then
    python3 "$(dirname "$0")/ncu_source.py" "$src"
    rc=$?
  fi
  gzip -f -9 "$src" 2> /dev/null
  echo "ncu exit $rc; table $src.gz, log $f"
  exit $rc
fi

KRONBLAS_TUNE=$tune ncu --clock-control none -k "regex:$2" --launch-skip "$skip" -c 1 \
  --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy \
  --section InstructionStats --section ComputeWorkloadAnalysis --print-details all \
  "$bench" --backend cuda --type "$type" --reps 2 --warmup 0 --no-baselines --no-ceilings "$1" > "$f" 2>&1
rc=$?
grep -E "^  [a-z_]*kb_|void kb_" "$f" | head -n 1
grep -E "SM Frequency|Duration|Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Eligible Warps|Active Warps Per|Warp Cycles Per Issued|Registers Per|Achieved Active Warps|Stall|stall|DRAM Throughput" "$f" |
  sed 's/  */ /g' | head -n 60
echo "ncu exit $rc; report $f"
exit $rc
