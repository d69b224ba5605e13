#!/bin/sh
# t-device-ab.sh - TAP test of tools/device-ab.sh (the GPU machine's
# before/after timing) without a GPU: KB_AB_REUSE=1 on two made-up trees
# whose kronblas-bench writes a fixed CSV, so that the rounds, the
# arguments passed on and the summary (times, change, baselines, verify)
# can be checked; made-up tarballs for the build (KB_AB_CONFIGURE, a tree
# that does not build); and the errors it must stop at.  SKIPs without
# python3.
tools=${top_srcdir:-.}/tools
script=$tools/device-ab.sh
tmp=${TMPDIR:-/tmp}/t-device-ab.$$
trap 'rm -rf "$tmp" "$tmp".*' EXIT
. "${top_srcdir:-.}/tools/tap.sh"

tap_need python3

echo "1..13"

# tree V MS: a made-up built tree whose bench writes one row of MS ms (and
# "nan" for a second shape) and records its arguments
tree() {
  d=$tmp/kb-ab-$1/kronblas-0
  mkdir -p "$d/tools"
  cat > "$d/tools/kronblas-bench" <<SH
#!/bin/sh
echo "\$@" >> "$tmp/args-$1"
csv=\$2
printf 'shape,type,ms,baseline_gemm_ms,baseline_shuffle_ms,verify\n' > "\$csv"
printf 'A_8x8^5,s,$2,0.5,0.4,PASS\n' >> "\$csv"
printf 'B_2x2^2,s,nan,,,-\n' >> "\$csv"
SH
  chmod +x "$d/tools/kronblas-bench"
}

mkdir -p "$tmp"
KB_AB_DIR=$tmp KB_AB_REUSE=1 OUT=$tmp/out sh "$script" x.tar.gz y.tar.gz 1 --type s > "$tmp.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp.out"
ok $(test $rc -eq 1 && grep -q "no built tree $tmp/kb-ab-old" "$tmp.out"; echo $?) \
  "KB_AB_REUSE=1 without built trees stops, naming the missing one"

tree old 0.200
tree new 0.190
KB_AB_DIR=$tmp KB_AB_REUSE=1 OUT=$tmp/out sh "$script" x.tar.gz y.tar.gz 2 --type s --beta 1 > "$tmp.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp.out"
ok $rc "reusing made-up trees, two rounds: exit 0"
ok $(grep -q "^build: reusing $tmp/kb-ab-old and $tmp/kb-ab-new" "$tmp.out"; echo $?) "says which trees it reuses"
ok $(grep -Eq '^A_8x8\^5 +s old 0\.200/0\.200 new 0\.190/0\.190 -5\.0% faster baseline 0\.4000-0\.4000 PASS$' "$tmp.out"
     echo $?) "a row: both rounds' times, the change (-5.0%), the faster baseline's range, verify"
ok $(grep -Eq '^B_2x2\^2 +s old nan/nan new nan/nan - +-$' "$tmp.out"; echo $?) \
  "a row without times: no change, no baseline"
ok $(test "$(cat "$tmp/args-old")" = "--csv $tmp/out/ab-old-1.csv --type s --beta 1
--csv $tmp/out/ab-old-2.csv --type s --beta 1" && test "$(wc -l < "$tmp/args-new")" -eq 2; echo $?) \
  "each round runs each tree's bench once with its own CSV and the arguments given"

# tarball V MS [FAIL]: a made-up release tarball whose configure records
# its arguments and whose make makes the made-up bench (or fails; making
# everything fails too: device-ab.sh must build only the bench)
tarball() {
  d=$tmp/src-$1/kronblas-0
  mkdir -p "$d/tools"
  printf '#!/bin/sh\necho "$@" > configure.args\n' > "$d/configure"
  chmod +x "$d/configure"
  cat > "$d/tools/bench.in" <<SH
#!/bin/sh
printf 'shape,type,ms,baseline_gemm_ms,baseline_shuffle_ms,verify\n' > "\$2"
printf 'A_8x8^5,s,$2,,,-\n' >> "\$2"
SH
  if [ -n "${3:-}" ]; then
    printf 'tools/kronblas-bench:\n\t@echo made-up compile error; exit 1\n' > "$d/Makefile"
  else
    printf 'all:\n\texit 1\ntools/kronblas-bench:\n\tcp tools/bench.in $@ && chmod +x $@\n' > "$d/Makefile"
  fi
  tar -C "$tmp/src-$1" -czf "$tmp/$1.tar.gz" kronblas-0
}

tarball old 0.300
tarball new 0.330
KB_AB_DIR=$tmp/b KB_AB_CONFIGURE="--disable-static --without-nccl" OUT=$tmp/out2 sh "$script" "$tmp/old.tar.gz" \
  "$tmp/new.tar.gz" 1 --type s > "$tmp.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp.out"
ok $(test $rc -eq 0 && grep -q "^build: old rc 0, new rc 0" "$tmp.out" &&
     grep -Eq '^A_8x8\^5 +s old 0\.300 new 0\.330 \+10\.0% ' "$tmp.out"; echo $?) \
  "from tarballs: both benches built in KB_AB_DIR (and nothing else), timed, +10.0%"
ok $(r=0; for v in old new; do
       test "$(cat "$tmp/b/kb-ab-$v/kronblas-0/configure.args")" = "--with-cuda-arch=90 --disable-static --without-nccl" ||
         r=1
     done; echo $r) "KB_AB_CONFIGURE's words reach both trees' configure"

tarball new 0.330 fail
KB_AB_DIR=$tmp/b OUT=$tmp/out3 sh "$script" "$tmp/old.tar.gz" "$tmp/new.tar.gz" 1 --type s > "$tmp.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp.out"
ok $(test $rc -eq 1 && grep -q "new rc [1-9]" "$tmp.out" && grep -q "made-up compile error" "$tmp.out" &&
     ! test -e "$tmp/out3/ab-old-1.csv"; echo $?) "a tree that does not build: exit 1, its make log's tail, no timing"

# Several new tarballs: a third tree, new2, built, timed and summarised
tarball new 0.330
tarball new2 0.150
KB_AB_DIR=$tmp/c OUT=$tmp/out4 sh "$script" "$tmp/old.tar.gz" "$tmp/new.tar.gz,$tmp/new2.tar.gz" 2 --type s \
  > "$tmp.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp.out"
ok $(test $rc -eq 0 && grep -q "^build: old rc 0, new rc 0, new2 rc 0, " "$tmp.out" &&
     grep -Eq '^A_8x8\^5 +s old 0\.300/0\.300 new 0\.330/0\.330 \+10\.0% new2 0\.150/0\.150 -50\.0% +-$' "$tmp.out"
     echo $?) "NEW,NEW2: three trees built, each new one's times and change against the old"
KB_AB_DIR=$tmp/c KB_AB_REUSE=1 OUT=$tmp/out5 sh "$script" x "y,z" 1 --type s > "$tmp.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp.out"
ok $(test $rc -eq 0 && grep -q "^build: reusing $tmp/c/kb-ab-old $tmp/c/kb-ab-new and $tmp/c/kb-ab-new2$" "$tmp.out" &&
     test -e "$tmp/out5/ab-new2-1.csv"; echo $?) "KB_AB_REUSE=1 with two new tarballs reuses the three trees"

# A bench that fails (exit 1: a verification, say) in a round: the rows
# are still shown, and the call fails
mkdir -p "$tmp/d/kb-ab-old/kronblas-0/tools" "$tmp/d/kb-ab-new/kronblas-0/tools"
cp "$tmp/kb-ab-old/kronblas-0/tools/kronblas-bench" "$tmp/d/kb-ab-old/kronblas-0/tools/"
printf '#!/bin/sh\nprintf "shape,type,ms\\nA_8x8^5,s,0.5\\n" > "$2"\nexit 1\n' > "$tmp/d/kb-ab-new/kronblas-0/tools/kronblas-bench"
chmod +x "$tmp/d/kb-ab-new/kronblas-0/tools/kronblas-bench"
KB_AB_DIR=$tmp/d KB_AB_REUSE=1 OUT=$tmp/out6 sh "$script" x y 1 --type s > "$tmp.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp.out"
ok $(test $rc -eq 1 && grep -q "^round 1, new: kronblas-bench failed" "$tmp.out" &&
     grep -Eq '^A_8x8\^5 +s old 0\.200 new 0\.5 ' "$tmp.out"; echo $?) "a bench that fails: said, its rows shown, exit 1"

sh "$script" x y > "$tmp.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp.out"
ok $(test $rc -eq 2 && grep -q usage "$tmp.out"; echo $?) "too few arguments: exit 2 and the usage"
exit $failed
