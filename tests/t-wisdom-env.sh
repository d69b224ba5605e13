#!/bin/sh
# t-wisdom-env.sh - KRONBLAS_WISDOM_FILE: kronblasCreate must succeed (and
# compute) whatever the variable names: a corrupt file, a missing file, a
# directory, a file of another format; it must not create the file.  The
# library reads the environment once per process, so each case is its own
# run of tests/t-wisdom --env-create.
top_builddir=${top_builddir-.}
prog="$top_builddir/tests/t-wisdom"
dir=$(mktemp -d "${TMPDIR:-/tmp}/t-wisdom-env.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
printf 'garbage\n\001\002' > "$dir/bad.wisdom"
printf 'kronblas-wisdom 7\nlibrary 0\n' > "$dir/v7.wisdom"
mkdir "$dir/adir"
echo "1..5"
n=0
check() {
  n=$((n + 1))
  if KRONBLAS_WISDOM_FILE="$1" KRONBLAS_LOG_LEVEL=none "$prog" --env-create; then
    echo "ok $n - kronblasCreate with KRONBLAS_WISDOM_FILE=$2"
  else
    echo "not ok $n - kronblasCreate with KRONBLAS_WISDOM_FILE=$2"
  fi
}
check "$dir/bad.wisdom" "a corrupt file"
check "$dir/missing.wisdom" "a missing file"
check "$dir/adir" "a directory"
check "$dir/v7.wisdom" "another format version"
if test -e "$dir/missing.wisdom"; then
  echo "not ok 5 - kronblasCreate created the missing wisdom file"
else
  echo "ok 5 - kronblasCreate does not create the wisdom file"
fi
