#!/bin/sh
# t-install.sh - `make install` into a temporary DESTDIR, then build a small
# C program with nothing but `pkg-config --cflags --libs kronblas` and run
# it: every entry point family of every type gives the right answer, and
# errors give their status.  Also: the header compiles as strict C99, the
# static library and the .pc are installed, and the shared library exports
# only kronblas* symbols.  TAP output; run by `make check` with top_srcdir,
# top_builddir, MAKE, CC, CFLAGS and PKG_CONFIG in the environment.

: "${top_builddir:=.}"
: "${MAKE:=make}"
: "${CC:=cc}"
: "${PKG_CONFIG:=pkg-config}"

# A library built with sanitizers (CFLAGS="-fsanitize=address,undefined ...")
# needs their runtimes in every program that loads it: the program gets the
# build's -fsanitize flags too, and nothing else of its CFLAGS.
sanflags=
for f in ${CFLAGS-}; do
  case $f in -fsanitize=*) sanflags="$sanflags $f" ;; esac
done

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }
diag() { sed 's/^/# /' "$@"; }
finish() { echo "1..$n"; test "$failed" -eq 0; exit $?; }

if ! command -v "$PKG_CONFIG" >/dev/null 2>&1; then
  echo "1..0 # SKIP pkg-config ($PKG_CONFIG) not found"
  exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kronblas-install.XXXXXX") || { echo "1..0 # SKIP no temporary directory"; exit 0; }
# The install may leave read-only files (distcheck); make them writable first.
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
dest=$tmp/root

# ---- install
if $MAKE -C "$top_builddir" install DESTDIR="$dest" >"$tmp/install.log" 2>&1; then
  ok "make install DESTDIR=<tmp>"
else
  notok "make install DESTDIR=<tmp>"
  diag "$tmp/install.log"
  finish
fi

pc=$(find "$dest" -name kronblas.pc -type f | head -n 1)
if test -z "$pc"; then
  notok "kronblas.pc installed"
  finish
fi
pcdir=$(dirname "$pc")
libdir=$(dirname "$pcdir")
hdr=$(find "$dest" -name kronblas.h -type f | head -n 1)
shlib=$(find "$libdir" -name 'libkronblas.so*' -type f | head -n 1)
if test -n "$hdr" && test -f "$(dirname "$hdr")/kronblas_version.h" && test -n "$shlib" &&
   test -f "$libdir/libkronblas.a"; then
  ok "installed: kronblas.h, kronblas_version.h, shared and static libkronblas, kronblas.pc"
else
  notok "installed: kronblas.h, kronblas_version.h, shared and static libkronblas, kronblas.pc"
  find "$dest" | sed 's/^/# /'
fi

PKG_CONFIG_PATH=$pcdir
PKG_CONFIG_SYSROOT_DIR=$dest
PKG_CONFIG_LIBDIR=$pcdir
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
cflags=$($PKG_CONFIG --cflags kronblas 2>"$tmp/pc.err")
rc1=$?
libs=$($PKG_CONFIG --libs kronblas 2>>"$tmp/pc.err")
rc2=$?
if test $rc1 -eq 0 && test $rc2 -eq 0; then
  ok "pkg-config --cflags --libs kronblas: $cflags $libs"
else
  notok "pkg-config --cflags --libs kronblas"
  diag "$tmp/pc.err"
  finish
fi

# ---- the header alone, as strict C99 (and the version macro)
cat >"$tmp/hdr.c" <<'EOF'
#include <kronblas.h>
#if !defined(KRONBLAS_VERSION) || KRONBLAS_VERSION != KRONBLAS_VERSION_MAJOR * 10000 + KRONBLAS_VERSION_MINOR * 100 + KRONBLAS_VERSION_PATCH
#error KRONBLAS_VERSION
#endif
int kb_hdr_check(void);
int kb_hdr_check(void) { return (int)KRONBLAS_STATUS_NOT_SUPPORTED; }
EOF
if $CC -std=c99 -pedantic-errors -Wall -Wextra -Werror $cflags -c -o "$tmp/hdr.o" "$tmp/hdr.c" >"$tmp/hdr.log" 2>&1; then
  ok "installed kronblas.h compiles as strict C99 (-std=c99 -pedantic-errors -Werror)"
else
  notok "installed kronblas.h compiles as strict C99 (-std=c99 -pedantic-errors -Werror)"
  diag "$tmp/hdr.log"
fi

# ---- exported symbols
if command -v nm >/dev/null 2>&1; then
  nm -D --defined-only "$shlib" 2>/dev/null | awk '$2 ~ /^[TDBRVWiu]$/ { print $3 }' |
    grep -v '^kronblas' | grep -v '^_' | grep -v '^$' >"$tmp/extra.syms"
  nm -D --defined-only "$shlib" 2>/dev/null | awk '{ print $3 }' | grep -c '^kronblas' >"$tmp/count"
  if test ! -s "$tmp/extra.syms" && test "$(cat "$tmp/count")" -gt 0; then
    ok "the shared library exports only kronblas* symbols ($(cat "$tmp/count") of them)"
  else
    notok "the shared library exports only kronblas* symbols"
    diag "$tmp/extra.syms"
  fi
else
  skip "nm not found, exported symbols not checked"
fi

# ---- a program built with pkg-config flags only
cat >"$tmp/prog.c" <<'EOF'
/* Every entry point family of every type on one small problem with a known
 * answer: (F0 (x) F1) x with F0 = [1 2; 3 4], F1 = [5 6], x = [1 2 3 4] is
 * [95 207]; the second batch entry, x = [4 3 2 1], gives [70 178].  alpha is
 * 2 (complex: 2i) and beta 0, with NaN in Y. */
#include <kronblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int fails;

static void check(const char *name, kronblasStatus_t st, const double *got_re, const double *got_im,
                  const double *want, int n, int cplx)
{
  int i, good = st == KRONBLAS_STATUS_SUCCESS;
  for (i = 0; i < n; i++)
    good = good && (cplx ? got_re[i] == 0 && got_im[i] == 2 * want[i] : got_re[i] == 2 * want[i]);
  printf("%s %s: %s", good ? "PASS" : "FAIL", name, kronblasGetStatusName(st));
  for (i = 0; i < n; i++)
    printf(" %g%+gi", got_re[i], got_im[i]);
  printf("\n");
  fails += !good;
}

int main(void)
{
  static const double want1[2] = { 95, 207 }, want2[4] = { 95, 207, 70, 178 };
  static const double f0v[4] = { 1, 3, 2, 4 }, f1v[2] = { 5, 6 }, xv[8] = { 1, 2, 3, 4, 4, 3, 2, 1 };
  const int p[] = { 2, 2 }, q[] = { 2, 1 }, ldf[] = { 2, 1 };
  const int64_t p64[] = { 2, 2 }, q64[] = { 2, 1 }, ldf64[] = { 2, 1 };
  const long long sF[] = { 0, 0 };
  kronblasHandle_t h;
  double re[4], im[4];
  int i, v;

  if (kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU) != KRONBLAS_STATUS_SUCCESS) {
    printf("FAIL create\n");
    return 1;
  }
  for (v = 0; v < 4; v++) {
    kronblasStatus_t st;
    int nb = v >= 2 ? 2 : 1;
    const char *fam[4] = { "gekmm", "gekmm_64", "gekmmStridedBatched", "gekmmStridedBatched_64" };
    char name[64];
    {
      float f0[4], f1[2], X[8], Y[4], al = 2, be = 0;
      const float *F[2] = { f0, f1 };
      for (i = 0; i < 4; i++) f0[i] = (float)f0v[i];
      for (i = 0; i < 2; i++) f1[i] = (float)f1v[i];
      for (i = 0; i < 8; i++) X[i] = (float)xv[i];
      for (i = 0; i < 4; i++) Y[i] = NAN;
      switch (v) {
      case 0: st = kronblasSgekmm(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p, q, &al, X, 4, F, ldf, &be, Y, 2); break;
      case 1: st = kronblasSgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p64, q64, &al, X, 4, F, ldf64, &be, Y, 2); break;
      case 2: st = kronblasSgekmmStridedBatched(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p, q, &al, X, 4, 4, F, ldf, sF, &be, Y, 2, 2, 2); break;
      default: st = kronblasSgekmmStridedBatched_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p64, q64, &al, X, 4, 4, F, ldf64, sF, &be, Y, 2, 2, 2); break;
      }
      for (i = 0; i < 2 * nb; i++) { re[i] = Y[i]; im[i] = 0; }
      snprintf(name, sizeof name, "kronblasS%s", fam[v]);
      check(name, st, re, im, nb == 1 ? want1 : want2, 2 * nb, 0);
    }
    {
      double f0[4], f1[2], X[8], Y[4], al = 2, be = 0;
      const double *F[2] = { f0, f1 };
      for (i = 0; i < 4; i++) f0[i] = f0v[i];
      for (i = 0; i < 2; i++) f1[i] = f1v[i];
      for (i = 0; i < 8; i++) X[i] = xv[i];
      for (i = 0; i < 4; i++) Y[i] = NAN;
      switch (v) {
      case 0: st = kronblasDgekmm(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p, q, &al, X, 4, F, ldf, &be, Y, 2); break;
      case 1: st = kronblasDgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p64, q64, &al, X, 4, F, ldf64, &be, Y, 2); break;
      case 2: st = kronblasDgekmmStridedBatched(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p, q, &al, X, 4, 4, F, ldf, sF, &be, Y, 2, 2, 2); break;
      default: st = kronblasDgekmmStridedBatched_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p64, q64, &al, X, 4, 4, F, ldf64, sF, &be, Y, 2, 2, 2); break;
      }
      for (i = 0; i < 2 * nb; i++) { re[i] = Y[i]; im[i] = 0; }
      snprintf(name, sizeof name, "kronblasD%s", fam[v]);
      check(name, st, re, im, nb == 1 ? want1 : want2, 2 * nb, 0);
    }
    {
      kronblasComplex f0[4], f1[2], X[8], Y[4], al = { 0, 2 }, be = { 0, 0 };
      const kronblasComplex *F[2] = { f0, f1 };
      for (i = 0; i < 4; i++) { f0[i].x = (float)f0v[i]; f0[i].y = 0; }
      for (i = 0; i < 2; i++) { f1[i].x = (float)f1v[i]; f1[i].y = 0; }
      for (i = 0; i < 8; i++) { X[i].x = (float)xv[i]; X[i].y = 0; }
      for (i = 0; i < 4; i++) { Y[i].x = NAN; Y[i].y = NAN; }
      switch (v) {
      case 0: st = kronblasCgekmm(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p, q, &al, X, 4, F, ldf, &be, Y, 2); break;
      case 1: st = kronblasCgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p64, q64, &al, X, 4, F, ldf64, &be, Y, 2); break;
      case 2: st = kronblasCgekmmStridedBatched(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p, q, &al, X, 4, 4, F, ldf, sF, &be, Y, 2, 2, 2); break;
      default: st = kronblasCgekmmStridedBatched_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p64, q64, &al, X, 4, 4, F, ldf64, sF, &be, Y, 2, 2, 2); break;
      }
      for (i = 0; i < 2 * nb; i++) { re[i] = Y[i].x; im[i] = Y[i].y; }
      snprintf(name, sizeof name, "kronblasC%s", fam[v]);
      check(name, st, re, im, nb == 1 ? want1 : want2, 2 * nb, 1);
    }
    {
      kronblasDoubleComplex f0[4], f1[2], X[8], Y[4], al = { 0, 2 }, be = { 0, 0 };
      const kronblasDoubleComplex *F[2] = { f0, f1 };
      for (i = 0; i < 4; i++) { f0[i].x = f0v[i]; f0[i].y = 0; }
      for (i = 0; i < 2; i++) { f1[i].x = f1v[i]; f1[i].y = 0; }
      for (i = 0; i < 8; i++) { X[i].x = xv[i]; X[i].y = 0; }
      for (i = 0; i < 4; i++) { Y[i].x = NAN; Y[i].y = NAN; }
      switch (v) {
      case 0: st = kronblasZgekmm(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p, q, &al, X, 4, F, ldf, &be, Y, 2); break;
      case 1: st = kronblasZgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p64, q64, &al, X, 4, F, ldf64, &be, Y, 2); break;
      case 2: st = kronblasZgekmmStridedBatched(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p, q, &al, X, 4, 4, F, ldf, sF, &be, Y, 2, 2, 2); break;
      default: st = kronblasZgekmmStridedBatched_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p64, q64, &al, X, 4, 4, F, ldf64, sF, &be, Y, 2, 2, 2); break;
      }
      for (i = 0; i < 2 * nb; i++) { re[i] = Y[i].x; im[i] = Y[i].y; }
      snprintf(name, sizeof name, "kronblasZ%s", fam[v]);
      check(name, st, re, im, nb == 1 ? want1 : want2, 2 * nb, 1);
    }
  }
  {
    double X[4] = { 1, 2, 3, 4 }, f0[4] = { 1, 3, 2, 4 }, f1[2] = { 5, 6 }, Y[2] = { 7, 8 }, one = 1;
    const double *F[2] = { f0, f1 };
    kronblasStatus_t st = kronblasDgekmm(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, -1, 2, p, q, &one, X, 4,
                                         F, ldf, &one, Y, 2);
    int good = st == KRONBLAS_STATUS_INVALID_VALUE && Y[0] == 7 && Y[1] == 8;
    printf("%s m=-1: %s (%d), Y untouched\n", good ? "PASS" : "FAIL", kronblasGetStatusName(st), (int)st);
    fails += !good;
    st = kronblasDgekmm(NULL, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p, q, &one, X, 4, F, ldf, &one, Y, 2);
    good = st == KRONBLAS_STATUS_NOT_INITIALIZED && Y[0] == 7 && Y[1] == 8;
    printf("%s NULL handle: %s (%d)\n", good ? "PASS" : "FAIL", kronblasGetStatusName(st), (int)st);
    fails += !good;
  }
  {
    int version = 0;
    kronblasStatus_t st = kronblasGetVersion(NULL, &version);
    int good = st == KRONBLAS_STATUS_SUCCESS && version == KRONBLAS_VERSION;
    printf("%s kronblasGetVersion: %d\n", good ? "PASS" : "FAIL", version);
    fails += !good;
  }
  kronblasDestroy(h);
  return fails ? 1 : 0;
}
EOF
if $CC -o "$tmp/prog" "$tmp/prog.c" $cflags $libs $sanflags >"$tmp/build.log" 2>&1; then
  ok "a program builds with only the pkg-config flags${sanflags:+ (and$sanflags)}"
else
  notok "a program builds with only the pkg-config flags${sanflags:+ (and$sanflags)}"
  diag "$tmp/build.log"
  finish
fi

# The program must not pick up the build tree's library: only the installed one.
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/prog" >"$tmp/prog.out" 2>&1
rc=$?
while IFS= read -r line; do
  case $line in
    PASS\ *) ok "installed library: ${line#PASS }" ;;
    FAIL\ *) notok "installed library: ${line#FAIL }" ;;
    *) echo "# $line" ;;
  esac
done <"$tmp/prog.out"
if test $rc -eq 0 && grep -q '^PASS' "$tmp/prog.out"; then
  ok "the program ran and exited 0"
else
  notok "the program ran and exited 0 (exit status $rc)"
fi
if command -v ldd >/dev/null 2>&1; then
  if LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ldd "$tmp/prog" | grep libkronblas | grep -q "$libdir"; then
    ok "the program uses the installed libkronblas"
  else
    notok "the program uses the installed libkronblas"
    LD_LIBRARY_PATH=$libdir ldd "$tmp/prog" | sed 's/^/# /'
  fi
else
  skip "ldd not found"
fi

finish
