#!/bin/sh
# device-ncu.sh - Nsight Compute on one launch of a row's model plan, on a
# GPU machine, in a tree tools/device-run.sh (or device-ab.sh) already
# built: speed of light, scheduler and warp-state statistics with their
# stall reasons, occupancy, instruction counts.  What it is for: telling
# latency from bandwidth from instruction mix in one call (session 33's
# slice-GEMM kernel: 62% of issue slots busy, two warps a scheduler).
#
#   tools/device-ncu.sh [--type s|d] [--skip N] SHAPE KERNEL     (run in the built tree)
#
# KERNEL is matched against the kernels' base names (ncu -k regex:KERNEL,
# e.g. kb_gemm, kb_row, kb_fast); --skip N passes over the first N
# launches that match (default 0).  The clocks are left as found
# (--clock-control none).  The whole report goes to $OUT (or /tmp/kb-out)
# as ncu-SHAPE.txt ('^' written '_'); the lines that matter are printed.
set -u
type=s
skip=0
while [ $# -gt 2 ]; do
  case $1 in
  --type) type=$2; shift 2 ;;
  --skip) skip=$2; shift 2 ;;
  *) break ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: $0 [--type s|d] [--skip N] SHAPE KERNEL" >&2
  exit 2
fi
out=${OUT:-/tmp/kb-out}
mkdir -p "$out"
bench=./tools/kronblas-bench
[ -x "$bench" ] || { echo "$0: run it in a built tree ($bench not found)" >&2; exit 2; }
command -v ncu > /dev/null 2>&1 || PATH=/usr/local/cuda/bin:$PATH
f=$out/ncu-$(echo "$1" | tr '^' '_').txt

KRONBLAS_TUNE=0 ncu --clock-control none -k "regex:$2" --launch-skip "$skip" -c 1 \
  --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy \
  --section InstructionStats --section ComputeWorkloadAnalysis --print-details all \
  "$bench" --backend cuda --type "$type" --reps 2 --warmup 0 --no-baselines --no-ceilings "$1" > "$f" 2>&1
rc=$?
grep -E "^  [a-z_]*kb_|void kb_" "$f" | head -n 1
grep -E "SM Frequency|Duration|Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Eligible Warps|Active Warps Per|Warp Cycles Per Issued|Registers Per|Achieved Active Warps|Stall|stall|DRAM Throughput" "$f" |
  sed 's/  */ /g' | head -n 60
echo "ncu exit $rc; report $f"
exit $rc
