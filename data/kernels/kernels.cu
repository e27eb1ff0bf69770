// Small kernels whose compiler resource usage symgpu's parser is tested on.
// Compiled with the commands in README.md (nvcc 13.0, sm_90).
#include <cstdint>

// Streaming read: a(i) = b(i) * s.  No shared memory, few registers.
extern "C" __global__ void scale(float *a, const float *b, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] * s;
}

// Tiled matrix multiply with static shared memory (two 16x16 tiles = 2048 B).
#define TILE 16
__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// A template: the symbol names are C++-mangled (demangled with c++filt).
template <typename T, int R>
__global__ void reduce_sum(const T *in, T *out, int n)
{
    __shared__ T partial[256];
    T acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += in[i] * static_cast<T>(R);
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
template __global__ void reduce_sum<float, 1>(const float *, float *, int);
template __global__ void reduce_sum<double, 2>(const double *, double *, int);
