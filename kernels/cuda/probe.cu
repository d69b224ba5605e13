// probe.cu - device discovery for kronblasCreate.  Also the translation unit
// that proves the nvcc -> libtool build path on every CUDA build.
#include <cuda_runtime_api.h>

// Touches a device so that a broken driver/device pairing is seen here,
// not in the first GEKMM.
__global__ void kb_cuda_probe_kernel(int *flag)
{
  if (flag != nullptr && threadIdx.x == 0 && blockIdx.x == 0)
    *flag = 1;
}

// 1 if the CUDA runtime sees a device it can use.  On a machine with the
// toolkit but no driver, cudaGetDeviceCount returns an error (the runtime
// reaches libcuda lazily), and this returns 0.
extern "C" int kb_cuda_device_available(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n > 0;
}
