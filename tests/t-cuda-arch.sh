#!/bin/sh
# t-cuda-arch.sh - the kernels with sm_90 code (the TMA in gemm.cu, the
# clusters in row.cu) still compile for sm_80, as --with-cuda-arch=80,90
# builds them: ptxas refuses sm_90 instructions that are not guarded by
# __CUDA_ARCH__ >= 900 (session 42's first TMA commit would have broken
# such builds).  ptxas at -O0, for time; no GPU needed.
top_srcdir=${top_srcdir-.}
echo "1..2"
if [ -z "${KB_NVCC:-}" ]; then
  echo "ok 1 # SKIP no nvcc"
  echo "ok 2 # SKIP no nvcc"
  exit 0
fi
n=0
for f in gemm.cu row.cu; do
  n=$((n + 1))
  # shellcheck disable=SC2086 # the flags are a list
  if out=$($KB_NVCC -std=c++17 -arch=sm_80 -Xptxas -O0 $KB_NVCC_CPPFLAGS -cubin -o /dev/null \
      "$top_srcdir/kernels/cuda/$f" 2>&1); then
    echo "ok $n - kernels/cuda/$f compiles for sm_80"
  else
    echo "not ok $n - kernels/cuda/$f compiles for sm_80"
    echo "$out" | head -n 10 | sed 's/^/# /'
  fi
done
