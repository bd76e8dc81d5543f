__global__ void k() {}
