/* t-jit-nvrtc.c - the JIT's GPU-free half, runnable in CI (toolkit with
 * libnvrtc, no driver): the embedded kernel source compiles under NVRTC
 * for sm_90 for configurations the precompiled set lacks (vector width 1
 * and 2, odd and distinct shapes, fused factors), with the compile time of
 * each; and the disk cache round-trips a cubin, rejects corrupt, truncated
 * and mismatched files and survives an unwritable directory.  Includes the
 * library's lib/cuda_jit.c to reach its static functions (only kronblas*
 * symbols are exported).  SKIPs where libnvrtc cannot be opened. */
#include "../lib/cuda_jit.c"

#include "tap.h"

#include <time.h>

static kb_cuda_fast_cfg_t mk(int type, int P, int Q, int F, int TP, int NS, int TM, int RM, int RK, int RQ,
                             int ST, int XU, int VW)
{
  kb_cuda_fast_cfg_t c;
  memset(&c, 0, sizeof c);
  c.type = type; c.P = P; c.Q = Q; c.F = F; c.TP = TP; c.TK = NS * P; c.TM = TM; c.RM = RM;
  c.RK = RK; c.RQ = RQ; c.stages = ST; c.unroll = XU; c.vw = VW;
  return c;
}

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int write_file(const char *path, const char *data, size_t n)
{
  FILE *f = fopen(path, "wb");
  int ok = f != NULL && fwrite(data, 1, n, f) == n;
  if (f != NULL && fclose(f) != 0)
    ok = 0;
  return ok;
}

static char *read_file(const char *path, size_t *n)
{
  FILE *f = fopen(path, "rb");
  char *d;
  long l;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  l = ftell(f);
  rewind(f);
  d = malloc((size_t)l + 1);
  if (d != NULL && fread(d, 1, (size_t)l, f) != (size_t)l) { free(d); d = NULL; }
  fclose(f);
  *n = (size_t)l;
  return d;
}

/* Configurations compiled below. */
#define KB_T_NCFG 7

int main(void)
{
  /*                    type P   Q   F  TP  NS  TM RM RK RQ ST XU VW */
  kb_cuda_fast_cfg_t cfgs[KB_T_NCFG];
  const char *what[KB_T_NCFG] = { "3x3 float, width 1", "3x3 float fused x4, width 1",
                                  "52x50 float, width 2", "24x24 double fused x2, width 2",
                                  "65x20 double, width 1, 2 k-tiles", "24x24 float, width 4",
                                  "4x4 float, 8 vectors (loads and stores along m)" };
  char *cubin[KB_T_NCFG], lowered[KB_T_NCFG][512], dir[] = "/tmp/kb-t-jit-XXXXXX", path[4200];
  size_t size[KB_T_NCFG];
  double t, first = 0;
  int i, ok;
  uint64_t key;

  cfgs[0] = mk(0, 3, 3, 1, 3, 64, 1, 1, 4, 3, 2, 1, 1);
  cfgs[1] = mk(0, 3, 3, 4, 3, 216, 1, 1, 4, 3, 2, 1, 1);
  cfgs[2] = mk(0, 52, 50, 1, 26, 16, 2, 1, 4, 2, 2, 1, 2);
  cfgs[3] = mk(1, 24, 24, 2, 24, 48, 1, 1, 4, 8, 2, 1, 2);
  cfgs[4] = mk(1, 65, 20, 1, 13, 16, 1, 1, 4, 5, 1, 1, 1);
  cfgs[5] = mk(0, 24, 24, 1, 24, 64, 1, 1, 4, 8, 2, 1, 4);
  cfgs[6] = mk(0, 4, 4, 1, 4, 16, 8, 1, 4, 4, 2, 1, 4);

  if (!kb_cuda_jit_available())
    tap_skip_all("libnvrtc cannot be opened");
  tap_plan(KB_T_NCFG + 11);

  for (i = 0; i < KB_T_NCFG; i++) {
    cubin[i] = NULL;
    t = now();
    ok = kb_jit_compile(&cfgs[i], 90, &cubin[i], &size[i], lowered[i], sizeof lowered[i]) == 0;
    t = now() - t;
    if (i == 0) first = t;
    tap_ok(ok && size[i] > 4 && memcmp(cubin[i], "\177ELF", 4) == 0 && strncmp(lowered[i], "_Z", 2) == 0,
           "NVRTC compiles %s for sm_90 (%.2f s, %zu bytes)", what[i], t, ok ? size[i] : 0);
  }
  printf("# NVRTC compile time of the first kernel (3x3 float): %.3f s, target <= 1 s\n", first);

  /* Keys: per instantiation and per SM. */
  key = kb_jit_key(&cfgs[0], 90);
  tap_ok(key != kb_jit_key(&cfgs[0], 80) && key != kb_jit_key(&cfgs[1], 90) && key == kb_jit_key(&cfgs[0], 90),
         "cache keys differ by SM and instantiation, and are stable");

  if (mkdtemp(dir) == NULL) {
    printf("Bail out! mkdtemp\n");
    return 1;
  }
  {
    char sub[4200], *c2 = NULL, low2[512], *raw;
    size_t n2 = 0, rawn = 0;
    snprintf(sub, sizeof sub, "%s/a/b", dir);   /* created on demand */
    tap_ok(kb_jit_cache_load(sub, key, &c2, &n2, low2, sizeof low2) == 0, "absent file: not found");
    tap_ok(cubin[0] != NULL && kb_jit_cache_store(sub, key, cubin[0], size[0], lowered[0]) == 0,
           "store into a new directory");
    ok = kb_jit_cache_load(sub, key, &c2, &n2, low2, sizeof low2) == 1;
    tap_ok(ok && n2 == size[0] && memcmp(c2, cubin[0], n2) == 0 && strcmp(low2, lowered[0]) == 0,
           "load gives back the same cubin and kernel name");
    free(c2);
    c2 = NULL;
    tap_ok(kb_jit_cache_load(sub, key + 1, &c2, &n2, low2, sizeof low2) == 0, "another key: not found");

    kb_jit_cache_path(sub, key, path, sizeof path);
    raw = read_file(path, &rawn);
    tap_ok(raw != NULL && rawn == sizeof(kb_jit_hdr_t) + strlen(lowered[0]) + size[0], "file is header + name + cubin");
    if (raw != NULL) {
      raw[rawn / 2] ^= 0x5a;   /* one flipped byte in the cubin */
      ok = write_file(path, raw, rawn);
      tap_ok(ok && kb_jit_cache_load(sub, key, &c2, &n2, low2, sizeof low2) == -1 && c2 == NULL,
             "a corrupt byte is caught by the checksum");
      raw[rawn / 2] ^= 0x5a;
      ok = write_file(path, raw, rawn - 7);
      tap_ok(ok && kb_jit_cache_load(sub, key, &c2, &n2, low2, sizeof low2) == -1, "a truncated file is rejected");
      ok = write_file(path, raw, rawn);
      tap_ok(ok && kb_jit_cache_load(sub, key ^ 1, &c2, &n2, low2, sizeof low2) == 0,
             "a file under another key's name is not found");
      /* The same bytes renamed as another key: the header's key differs. */
      {
        char p2[4200];
        kb_jit_cache_path(sub, key ^ 1, p2, sizeof p2);
        ok = write_file(p2, raw, rawn);
        tap_ok(ok && kb_jit_cache_load(sub, key ^ 1, &c2, &n2, low2, sizeof low2) == -1,
               "a file whose header names another key is rejected");
        remove(p2);
      }
      free(raw);
    } else {
      tap_ok(0, "a corrupt byte is caught by the checksum");
      tap_ok(0, "a truncated file is rejected");
      tap_ok(0, "a file under another key's name is not found");
      tap_ok(0, "a file whose header names another key is rejected");
    }
    tap_ok(kb_jit_cache_store("/proc/kronblas-no-such-dir", key, cubin[0] ? cubin[0] : "x", 1, "x") == -1,
           "an unwritable directory is reported, not fatal");
    remove(path);
    snprintf(path, sizeof path, "%s/a/b", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/a", dir);
    rmdir(path);
    rmdir(dir);
  }
  for (i = 0; i < KB_T_NCFG; i++)
    free(cubin[i]);
  return tap_done();
}
