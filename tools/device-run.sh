#!/bin/sh
# device-run.sh - build a kronblas tarball on a GPU machine and run what is
# asked, in one go (the lent GPU machine has autotools but no libtool, so
# the tarball from `make dist` is what travels).
#
#   tools/device-run.sh TARBALL STEP...
#
# Steps, run in the order given:
#   check       make check (the GPU tests run for real); per-test summary
#   check-gpu   make check of the CUDA tests only
#   sanitizer   make check-sanitizer (compute-sanitizer memcheck + racecheck)
#   bench       kronblas-bench --shapes standard, float and double, CSV
#   bench-s     the same, float only
#   nsys / ncu  not wrapped: run them by hand on the built tree
#   shell:CMD   run CMD in the built tree (e.g. shell:./tools/kronblas-bench 1024_8x8^6)
#
# The tree is built in $KB_DEVICE_WORK (default /tmp/kb-device-build), so
# that two tarballs (old and new) can be built side by side.
#
# Logs go to $OUT (or /tmp/kb-out): configure.log, make.log, check.log,
# test-logs.tar.gz, sanitizer.log, STEP.csv and STEP.txt of the bench
# steps, tune.log (bench-tuned), gpu.txt.  KB_BENCH_ARGS (e.g. "--calls
# 20") is added to the bench steps' command lines.  The last
# lines printed are a short summary table.
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 TARBALL STEP..." >&2
  exit 2
fi
tarball=$(readlink -f "$1")
shift
out=${OUT:-/tmp/kb-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

work=${KB_DEVICE_WORK:-/tmp/kb-device-build}
rm -rf "$work"
mkdir -p "$work"
tar -C "$work" -xzf "$tarball" || { echo "cannot unpack $tarball"; exit 1; }
cd "$work"/kronblas-* || exit 1

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$out/gpu.txt" 2>&1
note "gpu: $(tail -n 1 "$out/gpu.txt")"

t0=$(date +%s)
./configure --with-cuda-arch=90 > "$out/configure.log" 2>&1 || { tail -n 30 "$out/configure.log"; exit 1; }
make -j16 > "$out/make.log" 2>&1 || { grep -E "error|Error" "$out/make.log" | head -n 40; exit 1; }
note "build: $(( $(date +%s) - t0 )) s"

for step in "$@"; do
  case $step in
  check|check-gpu)
    t0=$(date +%s)
    if [ "$step" = check-gpu ]; then
      make -j16 check TESTS="tests/t-cuda-gekmm tests/t-cuda-api" > "$out/check.log" 2>&1
    else
      make -j16 check > "$out/check.log" 2>&1
    fi
    rc=$?
    tar -czf "$out/test-logs.tar.gz" tests/*.log tests/*.trs test-suite.log 2>/dev/null
    grep -E "^(FAIL|ERROR|XPASS)" "$out/check.log"
    for f in tests/t-cuda-*.log; do
      [ -f "$f" ] || continue
      grep -E "^not ok|^# (seed|first bad)" "$f" | head -n 20
    done
    note "check: exit $rc, $(grep -c '^PASS' "$out/check.log") PASS, $(grep -c '^FAIL' "$out/check.log") FAIL, $(grep -c '^SKIP' "$out/check.log") SKIP, $(( $(date +%s) - t0 )) s"
    for f in tests/t-cuda-*.log; do
      [ -f "$f" ] || continue
      note "  $f: $(grep -c '^ok' "$f") ok, $(grep -c '^not ok' "$f") not ok, $(grep -c 'SKIP' "$f") skip"
    done
    ;;
  sanitizer)
    t0=$(date +%s)
    make check-sanitizer > "$out/sanitizer.log" 2>&1
    rc=$?
    tail -n 12 "$out/sanitizer.log"
    for f in tests/*.memcheck.log tests/*.racecheck.log; do
      [ -f "$f" ] || continue
      echo "-- $f"
      grep -E "^not ok|^# first bad|^# seed|^=========" "$f" | head -n 20 | tee -a "$out/sanitizer.log"
    done
    note "sanitizer: exit $rc, $(( $(date +%s) - t0 )) s"
    ;;
  bench|bench-s|bench-tuned|bench-model)
    # bench, bench-s: as the handle comes (model plans, or KRONBLAS_TUNE);
    # bench-tuned: KRONBLAS_TUNE=1 (the warm-up calls tune); bench-model:
    # model plans, kronblas only.
    types=s,d
    extra=
    tag=$step
    [ "$step" = bench-s ] && types=s
    [ "$step" = bench-model ] && extra=--no-baselines
    t0=$(date +%s)
    if [ "$step" = bench-tuned ]; then
      KRONBLAS_TUNE=1 KRONBLAS_LOG_LEVEL=info KRONBLAS_LOG_FILE="$out/tune.log" \
        ./tools/kronblas-bench --shapes standard --type $types --backend cuda $extra ${KB_BENCH_ARGS:-} \
        --csv "$out/$tag.csv" > "$out/$tag.txt" 2>&1
    else
      KRONBLAS_TUNE=0 ./tools/kronblas-bench --shapes standard --type $types --backend cuda $extra ${KB_BENCH_ARGS:-} \
        --csv "$out/$tag.csv" > "$out/$tag.txt" 2>&1
    fi
    rc=$?
    grep -v '^    ' "$out/$tag.txt" | tail -n 40
    note "$tag ($types): exit $rc, $(( $(date +%s) - t0 )) s"
    # issue 3's targets against this run (the GPyTorch ones stay MISSING:
    # no GPyTorch here)
    python3 tools/kb_targets.py --issue 3 "$out/$tag.csv" > "$out/$tag-targets.txt" 2>&1
    cat "$out/$tag-targets.txt" >> "$summary"
    ;;
  shell:*)
    cmd=${step#shell:}
    echo "== $cmd"
    sh -c "$cmd" 2>&1 | tee -a "$out/shell.log" | tail -n 60
    ;;
  *)
    echo "unknown step $step" >&2
    ;;
  esac
done
echo "==== summary"
cat "$summary"
