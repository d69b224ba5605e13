#!/bin/sh
# device-plans.sh - the model's plan and the tuner's plan of each row, side
# by side, with their times and the tuner's timing of every candidate
# launch, on a GPU machine, in a tree tools/device-run.sh (or device-ab.sh)
# already built.  What it is for: finding where the measured planner beats
# the model and why (session 32 found the tuner's unrolled neighbours of
# two precompiled configurations this way).
#
#   tools/device-plans.sh [--type s|d] SHAPE...      (run in the built tree)
#
# Per row it prints the model's time and launches, the tuned time and
# launches, and the tuner's fastest five candidates of each factor range;
# the whole logs go to $OUT (or /tmp/kb-out) as model-SHAPE.txt and
# tune-SHAPE.txt ('^' written '_').
set -u
type=s
if [ "${1:-}" = --type ] && [ $# -ge 2 ]; then
  type=$2
  shift 2
fi
if [ $# -lt 1 ]; then
  echo "usage: $0 [--type s|d] SHAPE..." >&2
  exit 2
fi
out=${OUT:-/tmp/kb-out}
mkdir -p "$out"
bench=./tools/kronblas-bench
[ -x "$bench" ] || { echo "$0: run it in a built tree ($bench not found)" >&2; exit 2; }

for S in "$@"; do
  f=$(echo "$S" | tr '^' '_')
  KRONBLAS_TUNE=0 KRONBLAS_LOG_LEVEL=debug "$bench" --backend cuda --type "$type" --reps 20 --warmup 1 \
    --no-baselines --no-ceilings "$S" > "$out/model-$f.txt" 2>&1
  KRONBLAS_TUNE=1 KRONBLAS_LOG_LEVEL=debug "$bench" --backend cuda --type "$type" --reps 20 \
    --no-baselines --no-ceilings "$S" > "$out/tune-$f.txt" 2>&1
  echo "== $S $type model: $(grep "^$S " "$out/model-$f.txt" | awk '{print $4}') ms"
  grep "cuda plan step" "$out/model-$f.txt" | sed 's/^kronblas debug: //' | sort -u
  echo "== $S $type tuned: $(grep "^$S " "$out/tune-$f.txt" | awk '{print $4}') ms"
  grep "cuda plan step" "$out/tune-$f.txt" | sed 's/^kronblas debug: //' | sort -u
  # the tuner's lines: "tune: factors HI..LO K=... WHAT ...: T ms"; the
  # fastest five a factor range
  grep "tune: factors" "$out/tune-$f.txt" | sed 's/^kronblas info: tune: //' |
    awk '{ r = $2; t = $(NF - 1); sub(/:$/, "", t); print r, t, $0 }' | sort -k1,1 -k2,2g |
    awk '$1 != last { n = 0; last = $1 } n < 5 { n++; $1 = ""; $2 = ""; sub(/^  /, "  "); print }'
done
