// A kernel with a large per-thread array indexed at run time: with -maxrregcount=32
// it lives in local memory and the compiler spills registers.
__global__ void spill_heavy(const float *in, float *out, int n, int k)
{
    float v[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int j = 0; j < 64; ++j) v[j] = in[(i + j * 7) % n] * (j + 1);
    float acc = 0.0f;
    for (int j = 0; j < 64; ++j) acc += v[(j * k + i) & 63] * v[j];
#pragma unroll
    for (int j = 0; j < 64; ++j) acc = acc * v[j] + v[63 - j];
    out[i] = acc;
}
