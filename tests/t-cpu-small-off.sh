#!/bin/sh
# t-cpu-small-off.sh - tests/t-cpu-small with KRONBLAS_CPU_SMALL_WORK=0: the
# small-work rule off, every call keeps the handle's threads (the library
# reads the environment once per process, so this is its own run).
top_builddir=${top_builddir-.}
KRONBLAS_CPU_SMALL_WORK=0 exec "$top_builddir/tests/t-cpu-small"
