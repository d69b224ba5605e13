/* cuda_jit.c - fast-kernel configurations compiled at run time: the
 * kernel source (kb_cuda_kernels.h, kb_cuda_ops.cuh, kb_fast.cuh, embedded
 * at build time as kb_jit_source.h) is compiled by NVRTC to a CUBIN for the
 * device's exact SM, for one instantiation of kb_fast_kernel, and loaded
 * with the runtime's cudaLibraryLoadData (CUDA 12+).
 *
 * Neither libnvrtc nor libcuda is a link-time dependency: libnvrtc is
 * opened with dlopen at the first JIT, so the library loads and runs its
 * CPU backend where the toolkit has no driver or no NVRTC.
 *
 * Cache: in memory per device (a configuration is compiled once per
 * process and device) and on disk, one file per kernel named by the hex
 * hash of (source, options, NVRTC version, SM, library version,
 * instantiation): a header (magic, format version, key, name length, cubin
 * size, checksum), the lowered kernel name, the cubin.  Files are written
 * to a temporary name in the same directory and renamed, so readers never
 * see half a file; a file that does not check out is ignored with a
 * warning and rewritten.  Directory: KRONBLAS_CACHE_DIR ("" or "off":
 * no disk cache), else $XDG_CACHE_HOME/kronblas, else
 * $HOME/.cache/kronblas.
 *
 * Every failure here (no libnvrtc, a compile error, an unwritable cache)
 * is a warning: the planner then uses the generic kernel. */
#include "cuda_internal.h"
#include "kb_jit_source.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ NVRTC */

/* The few NVRTC calls used, by pointer (nvrtc.h's types: nvrtcResult is an
 * enum whose success value is 0, nvrtcProgram an opaque pointer). */
typedef struct kb_nvrtc_prog_s *kb_nvrtc_prog;
static struct {
  int ok;
  int major, minor;
  const char *(*GetErrorString)(int);
  int (*Version)(int *, int *);
  int (*CreateProgram)(kb_nvrtc_prog *, const char *, const char *, int, const char *const *,
                       const char *const *);
  int (*DestroyProgram)(kb_nvrtc_prog *);
  int (*CompileProgram)(kb_nvrtc_prog, int, const char *const *);
  int (*AddNameExpression)(kb_nvrtc_prog, const char *);
  int (*GetLoweredName)(kb_nvrtc_prog, const char *, const char **);
  int (*GetCUBINSize)(kb_nvrtc_prog, size_t *);
  int (*GetCUBIN)(kb_nvrtc_prog, char *);
  int (*GetProgramLogSize)(kb_nvrtc_prog, size_t *);
  int (*GetProgramLog)(kb_nvrtc_prog, char *);
} kb_nvrtc;
static pthread_once_t kb_nvrtc_once = PTHREAD_ONCE_INIT;

#define KB_NVRTC_SYM(lib, field, name)                                  \
  (*(void **)&kb_nvrtc.field = dlsym(lib, name)) != NULL

static void kb_nvrtc_open(void)
{
  char names[3][512];
  void *lib = NULL;
  int i, major = CUDART_VERSION / 1000;
#ifdef KB_CUDA_LIBDIR
  snprintf(names[0], sizeof names[0], "%s/libnvrtc.so.%d", KB_CUDA_LIBDIR, major);
#else
  names[0][0] = '\0';
#endif
  snprintf(names[1], sizeof names[1], "libnvrtc.so.%d", major);
  snprintf(names[2], sizeof names[2], "libnvrtc.so");
  for (i = 0; i < 3 && lib == NULL; i++)
    if (names[i][0] != '\0')
      lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    kb_log(KB_LOG_WARN, "JIT: libnvrtc not found (%s): shapes without a precompiled kernel use the generic one",
           dlerror());
    return;
  }
  if (!(KB_NVRTC_SYM(lib, GetErrorString, "nvrtcGetErrorString") &&
        KB_NVRTC_SYM(lib, Version, "nvrtcVersion") &&
        KB_NVRTC_SYM(lib, CreateProgram, "nvrtcCreateProgram") &&
        KB_NVRTC_SYM(lib, DestroyProgram, "nvrtcDestroyProgram") &&
        KB_NVRTC_SYM(lib, CompileProgram, "nvrtcCompileProgram") &&
        KB_NVRTC_SYM(lib, AddNameExpression, "nvrtcAddNameExpression") &&
        KB_NVRTC_SYM(lib, GetLoweredName, "nvrtcGetLoweredName") &&
        KB_NVRTC_SYM(lib, GetCUBINSize, "nvrtcGetCUBINSize") &&
        KB_NVRTC_SYM(lib, GetCUBIN, "nvrtcGetCUBIN") &&
        KB_NVRTC_SYM(lib, GetProgramLogSize, "nvrtcGetProgramLogSize") &&
        KB_NVRTC_SYM(lib, GetProgramLog, "nvrtcGetProgramLog")) ||
      kb_nvrtc.Version(&kb_nvrtc.major, &kb_nvrtc.minor) != 0) {
    kb_log(KB_LOG_WARN, "JIT: libnvrtc lacks a needed function: shapes without a precompiled kernel use the generic one");
    dlclose(lib);
    return;
  }
  /* Kept open for the life of the process. */
  kb_nvrtc.ok = 1;
}

int kb_cuda_jit_available(void)
{
  pthread_once(&kb_nvrtc_once, kb_nvrtc_open);
  return kb_nvrtc.ok;
}

/* ------------------------------------------------------------ source */

static char *kb_jit_src;
static uint64_t kb_jit_src_hash;
static pthread_once_t kb_jit_src_once = PTHREAD_ONCE_INIT;

static void kb_jit_src_build(void)
{
  size_t n = sizeof kb_jit_source_lines / sizeof kb_jit_source_lines[0], i, len = 1;
  char *s;
  for (i = 0; i < n; i++)
    len += strlen(kb_jit_source_lines[i]);
  s = malloc(len);
  if (s == NULL)
    return;
  s[0] = '\0';
  for (i = 0, len = 0; i < n; i++) {
    size_t l = strlen(kb_jit_source_lines[i]);
    memcpy(s + len, kb_jit_source_lines[i], l + 1);
    len += l;
  }
  kb_jit_src_hash = kb_fnv1a(KB_FNV_INIT, s, len);
  kb_jit_src = s;
}

static const char *kb_jit_source(void)
{
  pthread_once(&kb_jit_src_once, kb_jit_src_build);
  return kb_jit_src;
}

/* The instantiation a configuration names, as NVRTC takes it.  FU
 * (kb_fast.cuh): fusions of 4 or more factors keep the fused loop rolled,
 * 1.5-2x less NVRTC time and no measured slowdown (H100: 2x2^9, 3x3^7,
 * 4x4^7); shallower ones unroll it as the precompiled set does (rolled,
 * 1024_6x6^7 float's 3-deep kernel ran 1.36x slower). */
static int kb_jit_name(const kb_cuda_fast_cfg_t *c, char *buf, size_t size)
{
  int n = snprintf(buf, size, "kb_fast_kernel<%s, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d>",
                   c->type == 0 ? "float" : "double", c->P, c->Q, c->F, c->TP, c->TK / c->P, c->TM,
                   c->RM, c->RK, c->RQ, c->stages, c->unroll, c->vw, c->F >= 4 ? 1 : KB_CUDA_MAXF);
  return n > 0 && (size_t)n < size ? 0 : -1;
}

/* NVRTC options of a configuration's compile (all of them go into the
 * cache key); returns how many. */
#define KB_JIT_NOPT_MAX 4
static int kb_jit_options(int sm, char arch[32], const char *opts[KB_JIT_NOPT_MAX])
{
  snprintf(arch, 32, "--gpu-architecture=sm_%d", sm);
  opts[0] = arch;
  opts[1] = "-std=c++17";
  return 2;
}

/* Compiles one instantiation for sm_<sm>: *cubin (malloc'd) and its size,
 * and the lowered (mangled) kernel name.  0 or -1 (logged). */
static int kb_jit_compile(const kb_cuda_fast_cfg_t *c, int sm, char **cubin, size_t *size,
                          char *lowered, size_t lsize)
{
  kb_nvrtc_prog prog = NULL;
  const char *src = kb_jit_source(), *opts[KB_JIT_NOPT_MAX], *low = NULL;
  char name[256], arch[32], *log = NULL;
  size_t n = 0;
  int r, rc = -1, nopt;
  struct timespec t0, t1;

  *cubin = NULL;
  if (!kb_cuda_jit_available() || src == NULL || kb_jit_name(c, name, sizeof name) != 0)
    return -1;
  nopt = kb_jit_options(sm, arch, opts);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  r = kb_nvrtc.CreateProgram(&prog, src, "kb_fast_jit.cu", 0, NULL, NULL);
  if (r == 0)
    r = kb_nvrtc.AddNameExpression(prog, name);
  if (r == 0) {
    r = kb_nvrtc.CompileProgram(prog, nopt, opts);
    if (r != 0 && kb_nvrtc.GetProgramLogSize(prog, &n) == 0 && n > 1 && (log = malloc(n)) != NULL &&
        kb_nvrtc.GetProgramLog(prog, log) == 0)
      kb_log(KB_LOG_WARN, "JIT: NVRTC log for %s:\n%.4000s", name, log);
  }
  if (r == 0)
    r = kb_nvrtc.GetLoweredName(prog, name, &low);
  if (r == 0)
    r = kb_nvrtc.GetCUBINSize(prog, &n);
  if (r == 0 && (strlen(low) >= lsize || n == 0 || (*cubin = malloc(n)) == NULL)) {
    kb_log(KB_LOG_WARN, "JIT: %s: no room for its cubin", name);
    goto out;
  }
  if (r == 0)
    r = kb_nvrtc.GetCUBIN(prog, *cubin);
  if (r != 0) {
    kb_log(KB_LOG_WARN, "JIT: compiling %s for sm_%d failed: %s", name, sm, kb_nvrtc.GetErrorString(r));
    goto out;
  }
  strcpy(lowered, low);
  *size = n;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  kb_log(KB_LOG_INFO, "JIT: compiled %s for sm_%d in %.0f ms (%zu bytes)", name, sm,
         (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6, n);
  rc = 0;
out:
  if (rc != 0) {
    free(*cubin);
    *cubin = NULL;
  }
  free(log);
  if (prog != NULL)
    (void)kb_nvrtc.DestroyProgram(&prog);
  return rc;
}

/* ------------------------------------------------------------ disk cache */

#define KB_JIT_MAGIC "KBJITCB"   /* 8 bytes with its NUL */
#define KB_JIT_FORMAT 1u

typedef struct {
  char magic[8];
  uint32_t format, name_len;
  uint64_t key, size, checksum;
} kb_jit_hdr_t;

/* The key of one kernel: everything its cubin depends on. */
static uint64_t kb_jit_key(const kb_cuda_fast_cfg_t *c, int sm)
{
  char name[256], arch[32], buf[128];
  const char *opts[KB_JIT_NOPT_MAX];
  uint64_t h;
  int i, nopt;
  (void)kb_jit_source();
  h = kb_fnv1a(KB_FNV_INIT, &kb_jit_src_hash, sizeof kb_jit_src_hash);
  nopt = kb_jit_options(sm, arch, opts);
  for (i = 0; i < nopt; i++)
    h = kb_fnv1a(h, opts[i], strlen(opts[i]) + 1);
  snprintf(buf, sizeof buf, "nvrtc %d.%d sm %d kronblas %s", kb_nvrtc.major, kb_nvrtc.minor, sm, PACKAGE_VERSION);
  h = kb_fnv1a(h, buf, strlen(buf) + 1);
  if (kb_jit_name(c, name, sizeof name) == 0)
    h = kb_fnv1a(h, name, strlen(name) + 1);
  return h;
}

/* The cache directory, 0 if the disk cache is on (dir in buf), -1 if off. */
static int kb_jit_cache_dir(char *buf, size_t size)
{
  const kb_env_t *e = kb_env();
  int n;
  if (e->cache_dir != NULL)
    n = (*e->cache_dir == '\0' || strcmp(e->cache_dir, "off") == 0) ? -1
        : snprintf(buf, size, "%s", e->cache_dir);
  else if (e->xdg_cache_home != NULL && *e->xdg_cache_home != '\0')
    n = snprintf(buf, size, "%s/kronblas", e->xdg_cache_home);
  else if (e->home != NULL && *e->home != '\0')
    n = snprintf(buf, size, "%s/.cache/kronblas", e->home);
  else
    n = -1;
  return n > 0 && (size_t)n < size ? 0 : -1;
}

static void kb_jit_cache_path(const char *dir, uint64_t key, char *buf, size_t size)
{
  snprintf(buf, size, "%.4000s/%016llx.cubin", dir, (unsigned long long)key);
}

/* Reads the cubin of key: 1 found and valid, 0 absent, -1 present but
 * unusable (warned; the caller compiles and rewrites it). */
static int kb_jit_cache_load(const char *dir, uint64_t key, char **cubin, size_t *size, char *lowered,
                             size_t lsize)
{
  char path[4096 + 32];
  kb_jit_hdr_t h;
  FILE *f;
  char *data = NULL;
  int rc = -1;
  *cubin = NULL;
  kb_jit_cache_path(dir, key, path, sizeof path);
  f = fopen(path, "rb");
  if (f == NULL)
    return 0;
  if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, KB_JIT_MAGIC, 8) != 0 || h.format != KB_JIT_FORMAT ||
      h.key != key || h.name_len == 0 || h.name_len >= lsize || h.size == 0 || h.size > ((uint64_t)1 << 30))
    goto out;
  data = malloc((size_t)h.name_len + (size_t)h.size);
  if (data == NULL || fread(data, 1, (size_t)h.name_len + (size_t)h.size, f) != (size_t)h.name_len + (size_t)h.size ||
      fgetc(f) != EOF || kb_fnv1a(KB_FNV_INIT, data, (size_t)h.name_len + (size_t)h.size) != h.checksum)
    goto out;
  memcpy(lowered, data, h.name_len);
  lowered[h.name_len] = '\0';
  *cubin = malloc((size_t)h.size);
  if (*cubin == NULL)
    goto out;
  memcpy(*cubin, data + h.name_len, (size_t)h.size);
  *size = (size_t)h.size;
  rc = 1;
out:
  if (rc != 1)
    kb_log(KB_LOG_WARN, "JIT: ignoring cache file %s: bad header, size or checksum (rewritten)", path);
  free(data);
  fclose(f);
  return rc;
}

/* mkdir -p, 0700 for what it creates. */
static int kb_mkdirs(const char *dir)
{
  char p[4096];
  size_t i, n = strlen(dir);
  if (n == 0 || n >= sizeof p)
    return -1;
  memcpy(p, dir, n + 1);
  for (i = 1; i <= n; i++)
    if (p[i] == '/' || p[i] == '\0') {
      char c = p[i];
      p[i] = '\0';
      if (mkdir(p, 0700) != 0 && errno != EEXIST)
        return -1;
      p[i] = c;
    }
  return 0;
}

/* Writes the cubin of key; 0 or -1 (warned: the JIT goes on without). */
static int kb_jit_cache_store(const char *dir, uint64_t key, const char *cubin, size_t size, const char *lowered)
{
  char path[4096 + 32], tmp[4096 + 32];
  kb_jit_hdr_t h;
  FILE *f = NULL;
  int fd = -1, rc = -1;
  uint64_t sum;
  tmp[0] = '\0';
  memset(&h, 0, sizeof h);
  memcpy(h.magic, KB_JIT_MAGIC, 8);
  h.format = KB_JIT_FORMAT;
  h.name_len = (uint32_t)strlen(lowered);
  h.key = key;
  h.size = size;
  sum = kb_fnv1a(KB_FNV_INIT, lowered, h.name_len);
  h.checksum = kb_fnv1a(sum, cubin, size);
  kb_jit_cache_path(dir, key, path, sizeof path);
  if (kb_mkdirs(dir) != 0 || snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", dir) >= (int)sizeof tmp)
    goto out;
  fd = mkstemp(tmp);
  if (fd < 0)
    goto out;
  f = fdopen(fd, "wb");
  if (f == NULL)
    goto out;
  fd = -1;
  if (fwrite(&h, sizeof h, 1, f) != 1 || fwrite(lowered, 1, h.name_len, f) != h.name_len ||
      fwrite(cubin, 1, size, f) != size)
    goto out;
  if (fclose(f) != 0) {
    f = NULL;
    goto out;
  }
  f = NULL;
  if (rename(tmp, path) != 0)
    goto out;
  tmp[0] = '\0';
  rc = 0;
out:
  if (f != NULL)
    fclose(f);
  if (fd >= 0)
    close(fd);
  if (rc != 0) {
    kb_log(KB_LOG_WARN, "JIT: cannot write the kernel cache in %s (%s): kernels are compiled again next time",
           dir, strerror(errno));
    if (tmp[0] != '\0' && strstr(tmp, "XXXXXX") == NULL)
      (void)unlink(tmp);
  }
  return rc;
}

/* The cubin of a configuration for sm: from the disk cache, else compiled
 * (and stored).  0 or -1. */
static int kb_jit_cubin(const kb_cuda_fast_cfg_t *c, int sm, char **cubin, size_t *size, char *lowered,
                        size_t lsize)
{
  char dir[4096];
  uint64_t key;
  int disk, found = 0;
  if (!kb_cuda_jit_available())
    return -1;
  key = kb_jit_key(c, sm);
  disk = kb_jit_cache_dir(dir, sizeof dir) == 0;
  if (disk) {
    found = kb_jit_cache_load(dir, key, cubin, size, lowered, lsize);
    if (found == 1) {
      kb_log(KB_LOG_INFO, "JIT: kernel %016llx loaded from cache %s", (unsigned long long)key, dir);
      return 0;
    }
  }
  if (kb_jit_compile(c, sm, cubin, size, lowered, lsize) != 0)
    return -1;
  if (disk)
    (void)kb_jit_cache_store(dir, key, *cubin, *size, lowered);
  return 0;
}

/* ------------------------------------------------------------ loading */

#define KB_JIT_MAXDEV 64

typedef struct {
  const void *fn;     /* cudaKernel_t, as cudaLaunchKernel takes it */
  int max_blocks;
  int state;          /* 0 not yet, 1 loaded, 2 failed */
} kb_jit_slot_t;

static kb_jit_slot_t *kb_jit_slots[KB_JIT_MAXDEV];
static pthread_mutex_t kb_jit_lock = PTHREAD_MUTEX_INITIALIZER;

/* Compiles or reads, loads and sizes one kernel on device dev. */
static cudaError_t kb_jit_load(kb_cuda_fast_cfg_t *c, int dev, kb_jit_slot_t *slot)
{
  char lowered[512], *cubin = NULL;
  size_t size = 0;
  int major = 0, minor = 0, nsm = 0, occ = 0;
  cudaLibrary_t lib = NULL;
  cudaKernel_t k = NULL;
  cudaError_t err;

  err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev);
  if (err != cudaSuccess)
    return err;
  if (kb_jit_cubin(c, major * 10 + minor, &cubin, &size, lowered, sizeof lowered) != 0)
    return cudaErrorInvalidKernelImage;
  err = cudaLibraryLoadData(&lib, cubin, NULL, NULL, 0, NULL, NULL, 0);
  if (err == cudaSuccess)
    err = cudaLibraryGetKernel(&k, lib, lowered);
  /* A cudaKernel_t stands for the function in cudaFuncSetAttribute, the
   * occupancy calculator and cudaLaunchKernel (cuda_runtime_api.h). */
  if (err == cudaSuccess && c->smem > 48 * 1024)
    err = cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, c->smem);
  if (err == cudaSuccess)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, (const void *)k, c->threads, (size_t)c->smem);
  if (err == cudaSuccess && occ < 1)
    err = cudaErrorLaunchOutOfResources;
  free(cubin);
  if (err != cudaSuccess) {
    if (lib != NULL)
      (void)cudaLibraryUnload(lib);
    return err;
  }
  /* The library stays loaded for the life of the process. */
  c->occupancy = occ;
  slot->fn = (const void *)k;
  slot->max_blocks = occ * nsm;
  return cudaSuccess;
}

int kb_cuda_jit_kernel(int index, kb_cuda_fast_cfg_t *cfg, const void **fn, int *max_blocks)
{
  kb_jit_slot_t *slot;
  cudaError_t err;
  int dev = 0;
  char word[256];
  if (index < 0 || index >= KB_CUDA_MAX_CFGS)
    return (int)cudaErrorInvalidValue;
  err = cudaGetDevice(&dev);
  if (err != cudaSuccess)
    return (int)err;
  if (dev < 0 || dev >= KB_JIT_MAXDEV)
    return (int)cudaErrorInvalidDevice;
  pthread_mutex_lock(&kb_jit_lock);
  if (kb_jit_slots[dev] == NULL)
    kb_jit_slots[dev] = calloc(KB_CUDA_MAX_CFGS, sizeof(kb_jit_slot_t));
  if (kb_jit_slots[dev] == NULL) {
    err = cudaErrorMemoryAllocation;
    goto out;
  }
  slot = &kb_jit_slots[dev][index];
  if (slot->state == 0) {
    /* Compiled under the lock: a kernel is compiled once, and a second
     * thread that wants it waits for the first. */
    err = kb_jit_load(cfg, dev, slot);
    slot->state = err == cudaSuccess ? 1 : 2;
    if (err != cudaSuccess) {
      if (kb_jit_name(cfg, word, sizeof word) != 0)
        strcpy(word, "?");
      kb_log(KB_LOG_WARN, "JIT: kernel %s unusable on device %d (%s): the generic kernel is used instead",
             word, dev, cudaGetErrorString(err));
      cfg->jit = KB_CFG_JIT_FAILED;
      (void)cudaGetLastError();
    }
  }
  if (slot->state == 1) {
    *fn = slot->fn;
    *max_blocks = slot->max_blocks;
    err = cudaSuccess;
  } else {
    err = cudaErrorInvalidKernelImage;
  }
out:
  pthread_mutex_unlock(&kb_jit_lock);
  return (int)err;
}
