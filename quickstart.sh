#!/bin/sh
# quickstart.sh - from a fresh checkout: install the build tools that are
# missing (Debian/Ubuntu, via apt-get), build kronblas, and run one real
# GEKMM through tools/kronblas-bench on the best backend available (CUDA if a
# GPU is visible, else the CPU), verified, with its time and speed.
#
#   ./quickstart.sh              build and run the default problem
#   ./quickstart.sh SHAPE...     run these shapes instead (e.g. 1024_16x16^4)
set -e
cd "$(dirname "$0")"

missing=
have() { command -v "$1" >/dev/null 2>&1; }
have autoconf   || missing="$missing autoconf"
have automake   || missing="$missing automake"
have libtoolize || missing="$missing libtool"
have pkg-config || missing="$missing pkg-config"
have make       || missing="$missing make"
have cc         || missing="$missing gcc"
# OpenBLAS gives the benchmark its CPU baselines; the library never needs it.
if have pkg-config && ! pkg-config --exists openblas 2>/dev/null && [ ! -e /usr/include/x86_64-linux-gnu/cblas.h ] \
   && [ ! -e /usr/include/cblas.h ]; then
  missing="$missing libopenblas-dev"
fi
if [ -n "$missing" ]; then
  if ! have apt-get; then
    echo "quickstart: please install:$missing" >&2
    exit 1
  fi
  sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  echo "quickstart: installing$missing"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi

[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure
jobs=$(nproc 2>/dev/null || echo 2)
make -j"$jobs"

[ $# -gt 0 ] || set -- '256_8x8^5'
exec ./tools/kronblas-bench --backend auto --type s --verify --baselines "$@"
