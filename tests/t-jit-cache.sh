#!/bin/sh
# t-jit-cache.sh - the JIT's disk cache across processes, on a GPU: runs
# tests/t-cuda-jit three times with the same seed and a fresh
# KRONBLAS_CACHE_DIR.  The first process compiles kernels with NVRTC and
# writes cache files; the second finds every kernel there (the log says
# "loaded from cache", nothing is compiled); the third runs on corrupted
# files, which are ignored with a warning and rewritten, and the results
# are still right.  Every run must pass on its own.  SKIPs without a GPU
# (t-cuda-jit skips) or without NVRTC.
t=${top_builddir:-.}/tests/t-cuda-jit
dir=$(mktemp -d "${TMPDIR:-/tmp}/kb-jit-cache.XXXXXX") || { echo "Bail out! mktemp"; exit 1; }
trap 'rm -rf "$dir"' EXIT
KRONBLAS_CACHE_DIR=$dir/cache
KRONBLAS_LOG_LEVEL=info
KRONBLAS_TEST_SEED=${KRONBLAS_TEST_SEED:-20261121}
export KRONBLAS_CACHE_DIR KRONBLAS_LOG_LEVEL KRONBLAS_TEST_SEED

KRONBLAS_LOG_FILE=$dir/log1 "$t" > "$dir/out1" 2>&1
rc1=$?
if grep -q '^1\.\.0 # SKIP' "$dir/out1"; then
  echo "1..0 # SKIP $(sed -n 's/^1\.\.0 # SKIP //p' "$dir/out1")"
  exit 0
fi
if grep -q 'libnvrtc not found' "$dir/log1"; then
  echo "1..0 # SKIP no libnvrtc"
  exit 0
fi
echo "1..7"
n=0
check() {   # check COND-EXIT-STATUS DESCRIPTION
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
sed 's/^/# run 1: /' "$dir/out1" | grep -v '^# run 1: ok ' | head -n 40
check $rc1 "first process: CUDA results match the CPU's (kernels compiled)"
ncomp=$(grep -c 'JIT: compiled' "$dir/log1")
nfiles=$(ls "$dir/cache" 2>/dev/null | grep -c '\.cubin$')
echo "# run 1: $ncomp kernels compiled, $nfiles cache files"
grep 'JIT: compiled' "$dir/log1" | head -n 3 | sed 's/^/# /'
[ "$ncomp" -gt 0 ] && [ "$nfiles" -eq "$ncomp" ]
check $? "first process compiled kernels and wrote one cache file each"

KRONBLAS_LOG_FILE=$dir/log2 "$t" > "$dir/out2" 2>&1
check $? "second process: results match"
nload=$(grep -c 'loaded from cache' "$dir/log2")
ncomp2=$(grep -c 'JIT: compiled' "$dir/log2")
echo "# run 2: $nload kernels loaded from cache, $ncomp2 compiled"
[ "$nload" -eq "$ncomp" ] && [ "$ncomp2" -eq 0 ]
check $? "second process loaded every kernel from the cache and compiled none"

# Complement one byte in the middle of every cache file (writing a fixed
# value would leave a file whose byte already had it intact).
for f in "$dir"/cache/*.cubin; do
  sz=$(wc -c < "$f")
  b=$(dd if="$f" bs=1 skip=$((sz / 2)) count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
  printf "\\$(printf '%03o' $((255 - b)))" | dd of="$f" bs=1 seek=$((sz / 2)) conv=notrunc 2>/dev/null
done
KRONBLAS_LOG_FILE=$dir/log3 "$t" > "$dir/out3" 2>&1
check $? "third process, corrupt cache files: results still match"
nbad=$(grep -c 'ignoring cache file' "$dir/log3")
ncomp3=$(grep -c 'JIT: compiled' "$dir/log3")
echo "# run 3: $nbad cache files rejected, $ncomp3 kernels compiled again"
[ "$nbad" -eq "$ncomp" ] && [ "$ncomp3" -eq "$ncomp" ]
check $? "corrupt files were rejected with a warning and the kernels compiled again"
KRONBLAS_LOG_FILE=$dir/log4 "$t" > "$dir/out4" 2>&1
[ "$(grep -c 'loaded from cache' "$dir/log4")" -eq "$ncomp" ]
check $? "the rewritten files load again"
