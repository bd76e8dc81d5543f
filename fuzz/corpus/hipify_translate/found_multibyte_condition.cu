#if CUDA_VERSION >= 1çu
#endif
cudaFree(p);
