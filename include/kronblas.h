/*
 * kronblas.h - the whole single-node kronblas API.
 *
 * GEKMM: Y <- alpha * op(X) x (op(F_0) (x) ... (x) op(F_{n-1})) + beta * Y
 * (or the LEFT-side form), computed without forming the Kronecker product.
 * The contract for everything declared under "Contract" is ../shared/spec/api.md;
 * names, argument order and enum values there are fixed.  Declarations under
 * "Extensions" are kronblas' own additions.
 *
 * Compiles as C99 and as C++.  Needs no CUDA header: a cudaStream_t is passed
 * as void *.
 */
#ifndef KRONBLAS_H
#define KRONBLAS_H

#include <stddef.h>
#include <stdint.h>

#include <kronblas_version.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- Contract */

typedef struct kronblasContext *kronblasHandle_t;

typedef enum {
  KRONBLAS_STATUS_SUCCESS          = 0,
  KRONBLAS_STATUS_NOT_INITIALIZED  = 1,   /* NULL or destroyed handle */
  KRONBLAS_STATUS_ALLOC_FAILED     = 3,   /* host or device memory could not be had */
  KRONBLAS_STATUS_INVALID_VALUE    = 7,
  KRONBLAS_STATUS_ARCH_MISMATCH    = 8,   /* GPU too old for the requested path */
  KRONBLAS_STATUS_EXECUTION_FAILED = 13,  /* a kernel or collective failed */
  KRONBLAS_STATUS_INTERNAL_ERROR   = 14,
  KRONBLAS_STATUS_NOT_SUPPORTED    = 15   /* backend, type or mode not built/available */
} kronblasStatus_t;

typedef enum { KRONBLAS_OP_N = 0, KRONBLAS_OP_T = 1, KRONBLAS_OP_C = 2 } kronblasOperation_t;
typedef enum { KRONBLAS_SIDE_LEFT = 0, KRONBLAS_SIDE_RIGHT = 1 } kronblasSideMode_t;
typedef enum { KRONBLAS_POINTER_MODE_HOST = 0, KRONBLAS_POINTER_MODE_DEVICE = 1 } kronblasPointerMode_t;
typedef enum { KRONBLAS_BACKEND_CPU = 0, KRONBLAS_BACKEND_CUDA = 1 } kronblasBackend_t;

typedef struct { float x, y; } kronblasComplex;
typedef struct { double x, y; } kronblasDoubleComplex;

kronblasStatus_t kronblasGetVersion(kronblasHandle_t handle, int *version);

kronblasStatus_t kronblasCreate(kronblasHandle_t *handle);
kronblasStatus_t kronblasCreateWithBackend(kronblasHandle_t *handle, kronblasBackend_t backend);
kronblasStatus_t kronblasDestroy(kronblasHandle_t handle);
kronblasStatus_t kronblasGetBackend(kronblasHandle_t handle, kronblasBackend_t *backend);
kronblasStatus_t kronblasSetStream(kronblasHandle_t handle, void *cudaStream);
kronblasStatus_t kronblasGetStream(kronblasHandle_t handle, void **cudaStream);
kronblasStatus_t kronblasSetPointerMode(kronblasHandle_t handle, kronblasPointerMode_t mode);
kronblasStatus_t kronblasGetPointerMode(kronblasHandle_t handle, kronblasPointerMode_t *mode);
kronblasStatus_t kronblasSetWorkspace(kronblasHandle_t handle, void *workspace, size_t bytes);
const char *kronblasGetStatusName(kronblasStatus_t status);
const char *kronblasGetStatusString(kronblasStatus_t status);

/* float */
kronblasStatus_t kronblasSgekmm(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[],
    const float *alpha,
    const float *X, int ldx,
    const float *const F[], const int ldf[],
    const float *beta,
    float *Y, int ldy);

kronblasStatus_t kronblasSgekmm_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[],
    const float *alpha,
    const float *X, int64_t ldx,
    const float *const F[], const int64_t ldf[],
    const float *beta,
    float *Y, int64_t ldy);

kronblasStatus_t kronblasSgekmmStridedBatched(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[],
    const float *alpha,
    const float *X, int ldx, long long strideX,
    const float *const F[], const int ldf[], const long long strideF[],
    const float *beta,
    float *Y, int ldy, long long strideY,
    int batchCount);

kronblasStatus_t kronblasSgekmmStridedBatched_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[],
    const float *alpha,
    const float *X, int64_t ldx, long long strideX,
    const float *const F[], const int64_t ldf[], const long long strideF[],
    const float *beta,
    float *Y, int64_t ldy, long long strideY,
    int64_t batchCount);

/* double */
kronblasStatus_t kronblasDgekmm(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[],
    const double *alpha,
    const double *X, int ldx,
    const double *const F[], const int ldf[],
    const double *beta,
    double *Y, int ldy);

kronblasStatus_t kronblasDgekmm_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[],
    const double *alpha,
    const double *X, int64_t ldx,
    const double *const F[], const int64_t ldf[],
    const double *beta,
    double *Y, int64_t ldy);

kronblasStatus_t kronblasDgekmmStridedBatched(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[],
    const double *alpha,
    const double *X, int ldx, long long strideX,
    const double *const F[], const int ldf[], const long long strideF[],
    const double *beta,
    double *Y, int ldy, long long strideY,
    int batchCount);

kronblasStatus_t kronblasDgekmmStridedBatched_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[],
    const double *alpha,
    const double *X, int64_t ldx, long long strideX,
    const double *const F[], const int64_t ldf[], const long long strideF[],
    const double *beta,
    double *Y, int64_t ldy, long long strideY,
    int64_t batchCount);

/* single complex */
kronblasStatus_t kronblasCgekmm(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[],
    const kronblasComplex *alpha,
    const kronblasComplex *X, int ldx,
    const kronblasComplex *const F[], const int ldf[],
    const kronblasComplex *beta,
    kronblasComplex *Y, int ldy);

kronblasStatus_t kronblasCgekmm_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[],
    const kronblasComplex *alpha,
    const kronblasComplex *X, int64_t ldx,
    const kronblasComplex *const F[], const int64_t ldf[],
    const kronblasComplex *beta,
    kronblasComplex *Y, int64_t ldy);

kronblasStatus_t kronblasCgekmmStridedBatched(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[],
    const kronblasComplex *alpha,
    const kronblasComplex *X, int ldx, long long strideX,
    const kronblasComplex *const F[], const int ldf[], const long long strideF[],
    const kronblasComplex *beta,
    kronblasComplex *Y, int ldy, long long strideY,
    int batchCount);

kronblasStatus_t kronblasCgekmmStridedBatched_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[],
    const kronblasComplex *alpha,
    const kronblasComplex *X, int64_t ldx, long long strideX,
    const kronblasComplex *const F[], const int64_t ldf[], const long long strideF[],
    const kronblasComplex *beta,
    kronblasComplex *Y, int64_t ldy, long long strideY,
    int64_t batchCount);

/* double complex */
kronblasStatus_t kronblasZgekmm(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[],
    const kronblasDoubleComplex *alpha,
    const kronblasDoubleComplex *X, int ldx,
    const kronblasDoubleComplex *const F[], const int ldf[],
    const kronblasDoubleComplex *beta,
    kronblasDoubleComplex *Y, int ldy);

kronblasStatus_t kronblasZgekmm_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[],
    const kronblasDoubleComplex *alpha,
    const kronblasDoubleComplex *X, int64_t ldx,
    const kronblasDoubleComplex *const F[], const int64_t ldf[],
    const kronblasDoubleComplex *beta,
    kronblasDoubleComplex *Y, int64_t ldy);

kronblasStatus_t kronblasZgekmmStridedBatched(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[],
    const kronblasDoubleComplex *alpha,
    const kronblasDoubleComplex *X, int ldx, long long strideX,
    const kronblasDoubleComplex *const F[], const int ldf[], const long long strideF[],
    const kronblasDoubleComplex *beta,
    kronblasDoubleComplex *Y, int ldy, long long strideY,
    int batchCount);

kronblasStatus_t kronblasZgekmmStridedBatched_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[],
    const kronblasDoubleComplex *alpha,
    const kronblasDoubleComplex *X, int64_t ldx, long long strideX,
    const kronblasDoubleComplex *const F[], const int64_t ldf[], const long long strideF[],
    const kronblasDoubleComplex *beta,
    kronblasDoubleComplex *Y, int64_t ldy, long long strideY,
    int64_t batchCount);

/* -------------------------------------------------------------- Extensions */

/* Element type, for calls that are not typed by their name. */
typedef enum {
  KRONBLAS_R_32F = 0,   /* float */
  KRONBLAS_R_64F = 1,   /* double */
  KRONBLAS_C_32F = 2,   /* kronblasComplex */
  KRONBLAS_C_64F = 3    /* kronblasDoubleComplex */
} kronblasDataType_t;

/* Bytes of workspace one gekmm call (one batch entry at a time) of this
 * shape needs on the handle's backend, including the case where Y overlaps
 * X or a factor.  Pass this much to kronblasSetWorkspace to make the call
 * allocation-free.  Arguments are checked as gekmm checks them. */
kronblasStatus_t kronblasGetWorkspaceSize(kronblasHandle_t handle, kronblasDataType_t type,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[],
    size_t *bytes);

/* Threads the CPU backend may use for one call.  0 (the default) means
 * "as OpenMP would": OMP_NUM_THREADS or the number of cores.  The count is
 * a maximum: a call whose work the planner prices below about 100 us of
 * one core (all batch entries together) runs on one thread, as OpenBLAS
 * does for small GEMMs -- a second thread saves at most a few tens of
 * microseconds there, and waking one that has gone to sleep can take
 * milliseconds on a virtual machine.  KRONBLAS_CPU_SMALL_WORK=0 turns that
 * off.  Negative is INVALID_VALUE.  Accepted on every backend; only the
 * CPU backend uses it. */
kronblasStatus_t kronblasSetNumThreads(kronblasHandle_t handle, int nthreads);
kronblasStatus_t kronblasGetNumThreads(kronblasHandle_t handle, int *nthreads);

/* Which kernels the CUDA backend's planner may use.  ALL (the default):
 * the precompiled fast kernels, fusing consecutive equal factors in shared
 * memory, cuBLAS (real types, host pointer mode) where the planner expects
 * it to be faster, and the generic kernel for everything else; NO_FUSION:
 * fast kernels with one factor per launch, and the generic kernel; GENERIC:
 * the generic kernel only; CUBLAS: cuBLAS wherever it can be used, the
 * generic kernel elsewhere.  For tests and comparisons.  Accepted and ignored on the CPU backend; out of range
 * is INVALID_VALUE. */
typedef enum {
  KRONBLAS_KERNELS_ALL = 0,
  KRONBLAS_KERNELS_NO_FUSION = 1,
  KRONBLAS_KERNELS_GENERIC = 2,
  KRONBLAS_KERNELS_CUBLAS = 3
} kronblasKernelPolicy_t;
kronblasStatus_t kronblasSetKernelPolicy(kronblasHandle_t handle, kronblasKernelPolicy_t policy);
kronblasStatus_t kronblasGetKernelPolicy(kronblasHandle_t handle, kronblasKernelPolicy_t *policy);

/* How the CUDA backend plans a problem: MODEL (the default) splits the
 * factors into launches and picks kernels from a performance model, with
 * no extra work; MEASURE times the candidate launches on the device at the
 * first call of each problem shape (that call synchronises) and keeps the
 * fastest plan in the handle for later calls of the same shape.  New
 * handles start in MEASURE when the environment variable KRONBLAS_TUNE is
 * 1, on, yes or measure.  Accepted and ignored on the CPU backend; out of
 * range is INVALID_VALUE. */
typedef enum {
  KRONBLAS_TUNING_MODEL = 0,
  KRONBLAS_TUNING_MEASURE = 1
} kronblasTuningMode_t;
kronblasStatus_t kronblasSetTuningMode(kronblasHandle_t handle, kronblasTuningMode_t mode);
kronblasStatus_t kronblasGetTuningMode(kronblasHandle_t handle, kronblasTuningMode_t *mode);

/* Tuning results ("wisdom", doc/tuning.md): the measured plans a handle
 * keeps, saved to a text file and loaded into other handles and processes.
 * A file holds the plans of one backend identity (the backend, and for CUDA
 * the device name, SM count, compute capability, driver and runtime
 * versions) and one library version, with a format version and a checksum
 * of its contents; files are replaced atomically (a temporary file in the
 * same directory, renamed over the target).  A NULL or empty path is
 * INVALID_VALUE.
 *
 * kronblasExportWisdom writes the handle's measured plans to path.  When
 * path already holds a valid file of the same identity and library
 * version, its records are kept too (several runs accumulate; on equal
 * problem keys the handle's plan wins); any other file is replaced with a
 * warning.  A handle with no measured plans writes a valid file with zero
 * records.  A path that cannot be created (missing directory, no
 * permission, a directory) is INVALID_VALUE, a failed write
 * EXECUTION_FAILED; either way path is left as it was and no temporary
 * file remains.
 *
 * kronblasImportWisdom adds the plans of path to the handle (a plan of
 * the file replaces the handle's own for the same key).  A missing,
 * unreadable or corrupt file is INVALID_VALUE; a valid file of another
 * identity, library version or format version is NOT_SUPPORTED; in both
 * cases a warning is logged and the handle is unchanged.  Records the
 * backend cannot use (a kernel this build lacks, a plan that does not fit
 * its key) are skipped with a warning and the call succeeds.
 *
 * kronblasForgetWisdom drops the handle's measured plans (the next call of
 * each shape in MEASURE mode measures again); files are not touched.
 *
 * With the environment variable KRONBLAS_WISDOM_FILE set, kronblasCreate
 * imports that file when it exists (a file it cannot use is a warning,
 * never an error), and a handle that measures a new plan exports to it. */
kronblasStatus_t kronblasExportWisdom(kronblasHandle_t handle, const char *path);
kronblasStatus_t kronblasImportWisdom(kronblasHandle_t handle, const char *path);
kronblasStatus_t kronblasForgetWisdom(kronblasHandle_t handle);

#ifdef __cplusplus
}
#endif

#endif /* KRONBLAS_H */
