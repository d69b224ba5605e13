# kb_cuda.m4 - find the CUDA toolkit, cuBLAS, NVRTC and NCCL.
#
# KB_CHECK_CUDA: --with-cuda[=DIR] / --without-cuda, --with-cuda-arch=LIST.
# Default: use CUDA if nvcc is found (on PATH or in DIR/bin, DIR defaulting
# to /usr/local/cuda) and cudart/cuBLAS headers and libraries are usable.
# --with-cuda makes their absence an error.  Defines HAVE_CUDA, sets NVCC,
# NVCCFLAGS, CUDA_CPPFLAGS, CUDA_LDFLAGS, CUDA_LIBS, KB_CUDA_ARCH and the
# automake conditional HAVE_CUDA.
AC_DEFUN([KB_CHECK_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
      [build the CUDA backend (default: if found; DIR is the toolkit root)])],
    [kb_with_cuda=$withval], [kb_with_cuda=check])
  AC_ARG_WITH([cuda-arch],
    [AS_HELP_STRING([--with-cuda-arch=LIST],
      [comma-separated SM versions to build for, e.g. 90 or 80,90 (default: 90)])],
    [KB_CUDA_ARCH=$withval], [KB_CUDA_ARCH=90])
  AC_ARG_VAR([NVCC], [CUDA compiler])
  AC_ARG_VAR([NVCCFLAGS], [flags for the CUDA compiler])

  kb_have_cuda=no
  kb_have_cublas=no
  kb_have_nvrtc=no
  CUDA_CPPFLAGS=
  CUDA_LDFLAGS=
  CUDA_LIBS=
  AS_IF([test "x$kb_with_cuda" != xno], [
    AS_CASE([$kb_with_cuda],
      [yes|check], [kb_cuda_root=${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}],
      [kb_cuda_root=$kb_with_cuda])
    AS_IF([test -z "$NVCC"], [
      AC_PATH_PROG([NVCC], [nvcc], [], [$kb_cuda_root/bin$PATH_SEPARATOR$PATH])])
    AS_IF([test -n "$NVCC"], [
      # The toolkit root is where nvcc lives, unless DIR was given.
      AS_IF([test "x$kb_with_cuda" = xyes || test "x$kb_with_cuda" = xcheck],
        [kb_cuda_root=`AS_DIRNAME(["$NVCC"])`; kb_cuda_root=`AS_DIRNAME(["$kb_cuda_root"])`])
      kb_cuda_libdir=$kb_cuda_root/lib64
      AS_IF([test -d "$kb_cuda_libdir"], [], [kb_cuda_libdir=$kb_cuda_root/lib])
      kb_save_CPPFLAGS=$CPPFLAGS
      kb_save_LDFLAGS=$LDFLAGS
      kb_save_LIBS=$LIBS
      CPPFLAGS="$CPPFLAGS -I$kb_cuda_root/include"
      LDFLAGS="$LDFLAGS -L$kb_cuda_libdir"
      AC_CHECK_HEADER([cuda_runtime_api.h], [
        AC_CHECK_LIB([cudart], [cudaGetDeviceCount], [kb_have_cuda=yes])])
      AS_IF([test $kb_have_cuda = yes], [
        AC_CHECK_HEADER([cublas_v2.h], [
          AC_CHECK_LIB([cublas], [cublasCreate_v2], [kb_have_cublas=yes])])
        AC_CHECK_HEADER([nvrtc.h], [kb_have_nvrtc=yes])])
      CPPFLAGS=$kb_save_CPPFLAGS
      LDFLAGS=$kb_save_LDFLAGS
      LIBS=$kb_save_LIBS
    ])
    AS_IF([test $kb_have_cuda = yes && test $kb_have_cublas = no], [kb_have_cuda=no])
    AS_IF([test "x$kb_with_cuda" != xcheck && test $kb_have_cuda = no],
      [AC_MSG_ERROR([--with-cuda given but nvcc, cudart or cuBLAS was not found under $kb_cuda_root])])
  ])
  AS_IF([test $kb_have_cuda = yes], [
    CUDA_CPPFLAGS="-I$kb_cuda_root/include"
    # libcudart and libcublas are toolkit libraries; the driver (libcuda) and
    # NVRTC are reached at run time only, so a machine with the toolkit but
    # no driver still loads libkronblas and runs its CPU backend.
    CUDA_LDFLAGS="-L$kb_cuda_libdir -Wl,-rpath,$kb_cuda_libdir"
    CUDA_LIBS="-lcublas -lcudart -lstdc++"
    # Each entry as people write it -- 90, sm_90, compute_90, 9.0, 90a --
    # becomes the number nvcc's compute_/sm_ names take; anything else is
    # refused here rather than by nvcc in the middle of make.
    kb_gencode=
    kb_archs=
    for kb_a in `echo "$KB_CUDA_ARCH" | tr ',' ' '`; do
      kb_n=`echo "$kb_a" | sed -e 's/^sm_//' -e 's/^compute_//' -e 's/^\([[0-9]]*\)\.\([[0-9]]\)/\1\2/'`
      case $kb_n in
        [[1-9]][[0-9]] | [[1-9]][[0-9]][[0-9]] | [[1-9]][[0-9]][[af]] | [[1-9]][[0-9]][[0-9]][[af]]) ;;
        *) AC_MSG_ERROR([--with-cuda-arch: '$kb_a' is not an SM version (write 90, sm_90 or 9.0; several comma-separated)]) ;;
      esac
      kb_gencode="$kb_gencode -gencode=arch=compute_$kb_n,code=sm_$kb_n"
      kb_archs="$kb_archs${kb_archs:+,}$kb_n"
    done
    KB_CUDA_ARCH=$kb_archs
    AS_IF([test -z "$NVCCFLAGS"], [NVCCFLAGS="-O3 -std=c++17 -lineinfo"])
    NVCCFLAGS="$NVCCFLAGS $kb_gencode"
    AC_DEFINE([HAVE_CUDA], [1], [Define to 1 to build the CUDA backend.])
    AC_DEFINE_UNQUOTED([KB_CUDA_LIBDIR], ["$kb_cuda_libdir"], [Where the CUDA toolkit libraries (NVRTC) live.])
    AC_DEFINE_UNQUOTED([KB_CUDA_INCDIR], ["$kb_cuda_root/include"], [Where the CUDA toolkit headers live.])
  ])
  AS_IF([test $kb_have_nvrtc = yes],
    [AC_DEFINE([HAVE_NVRTC_H], [1], [Define to 1 if nvrtc.h is available.])])
  AC_SUBST([CUDA_CPPFLAGS])
  AC_SUBST([CUDA_LDFLAGS])
  AC_SUBST([CUDA_LIBS])
  AC_SUBST([KB_CUDA_ARCH])
  AM_CONDITIONAL([HAVE_CUDA], [test $kb_have_cuda = yes])
])

# KB_CHECK_NCCL: --with-nccl[=DIR] / --without-nccl.  Needs CUDA.
AC_DEFUN([KB_CHECK_NCCL], [
  AC_ARG_WITH([nccl],
    [AS_HELP_STRING([--with-nccl@<:@=DIR@:>@],
      [build the NCCL distributed driver (default: if found with CUDA)])],
    [kb_with_nccl=$withval], [kb_with_nccl=check])
  kb_have_nccl=no
  NCCL_CPPFLAGS=
  NCCL_LDFLAGS=
  NCCL_LIBS=
  AS_IF([test "x$kb_with_nccl" != xno && test $kb_have_cuda = yes], [
    kb_save_CPPFLAGS=$CPPFLAGS
    kb_save_LDFLAGS=$LDFLAGS
    kb_save_LIBS=$LIBS
    AS_CASE([$kb_with_nccl],
      [yes|check], [kb_nccl_inc=; kb_nccl_lib=],
      [kb_nccl_inc="-I$kb_with_nccl/include"; kb_nccl_lib="-L$kb_with_nccl/lib"])
    CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS $kb_nccl_inc"
    LDFLAGS="$LDFLAGS $CUDA_LDFLAGS $kb_nccl_lib"
    AC_CHECK_HEADER([nccl.h], [
      AC_CHECK_LIB([nccl], [ncclCommInitRank], [kb_have_nccl=yes], [], [-lcudart])])
    CPPFLAGS=$kb_save_CPPFLAGS
    LDFLAGS=$kb_save_LDFLAGS
    LIBS=$kb_save_LIBS
    NCCL_CPPFLAGS=$kb_nccl_inc
    NCCL_LDFLAGS=$kb_nccl_lib
    NCCL_LIBS=-lnccl
  ])
  AS_IF([test "x$kb_with_nccl" != xno && test "x$kb_with_nccl" != xcheck && test $kb_have_nccl = no],
    [AC_MSG_ERROR([--with-nccl given but NCCL (or the CUDA backend it needs) was not found])])
  AS_IF([test $kb_have_nccl = yes],
    [AC_DEFINE([HAVE_NCCL], [1], [Define to 1 to build the NCCL driver.])],
    [NCCL_CPPFLAGS=; NCCL_LDFLAGS=; NCCL_LIBS=])
  AC_SUBST([NCCL_CPPFLAGS])
  AC_SUBST([NCCL_LDFLAGS])
  AC_SUBST([NCCL_LIBS])
  AM_CONDITIONAL([HAVE_NCCL], [test $kb_have_nccl = yes])
])

# KB_CHECK_OPENBLAS: CBLAS for the benchmark's CPU baselines (tools only,
# never a dependency of the library).
AC_DEFUN([KB_CHECK_OPENBLAS], [
  AC_ARG_WITH([openblas],
    [AS_HELP_STRING([--without-openblas], [build the benchmark without OpenBLAS baselines])],
    [kb_with_openblas=$withval], [kb_with_openblas=check])
  kb_have_openblas=no
  OPENBLAS_CFLAGS=
  OPENBLAS_LIBS=
  AS_IF([test "x$kb_with_openblas" != xno], [
    PKG_CHECK_MODULES([OPENBLAS], [openblas], [kb_have_openblas=yes], [
      kb_save_LIBS=$LIBS
      AC_CHECK_HEADER([cblas.h], [AC_CHECK_LIB([openblas], [cblas_sgemm],
        [kb_have_openblas=yes; OPENBLAS_LIBS=-lopenblas])])
      LIBS=$kb_save_LIBS])])
  AS_IF([test $kb_have_openblas = yes],
    [AC_DEFINE([HAVE_OPENBLAS], [1], [Define to 1 if the tools may use OpenBLAS.])])
  AC_SUBST([OPENBLAS_CFLAGS])
  AC_SUBST([OPENBLAS_LIBS])
  AM_CONDITIONAL([HAVE_OPENBLAS], [test $kb_have_openblas = yes])
])
