// The module API: PTX loaded at run time (hipModuleLoad / hipModuleLoadData), functions looked
// up by name, launches with kernelParams and with a packed argument buffer, module variables.
#include "common.h"
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

struct Pair {
    int offset;
    double factor;
};

int main(int argc, char** argv) {
    CHECK_THAT(argc == 2, "usage: module_api <kernels.ptx>");
    std::ifstream f(argv[1]);
    std::stringstream text;
    text << f.rdbuf();
    std::string ptx = text.str();
    CHECK_THAT(!ptx.empty(), "cannot read %s", argv[1]);

    hipModule_t from_file, from_memory;
    HIP_CHECK(hipModuleLoad(&from_file, argv[1]));
    HIP_CHECK(hipModuleLoadData(&from_memory, ptx.c_str()));
    hipFunction_t scale_add, packed, missing;
    HIP_CHECK(hipModuleGetFunction(&scale_add, from_file, "scale_add"));
    HIP_CHECK(hipModuleGetFunction(&packed, from_memory, "packed"));
    CHECK_THAT(hipModuleGetFunction(&missing, from_file, "nope") == hipErrorNotFound, "a missing kernel");

    const int n = 3000;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) x[i] = i * 0.25f;
    float *dx, *dy;
    HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));
    HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
    // Change the module variable before launching.
    hipDeviceptr_t bias;
    size_t bias_size = 0;
    HIP_CHECK(hipModuleGetGlobal(&bias, &bias_size, from_file, "bias"));
    CHECK_THAT(bias_size == sizeof(float), "bias is %zu bytes", bias_size);
    float b = 2.0f;
    HIP_CHECK(hipMemcpyHtoD(bias, &b, sizeof b));
    float a = 3.0f;
    int count = n;
    void* params[] = {&dy, &dx, &a, &count};
    HIP_CHECK(hipModuleLaunchKernel(scale_add, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
    HIP_CHECK(hipMemcpy(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK_THAT(y[i] == std::fma(3.0f, x[i], 2.0f), "y[%d] = %f", i, y[i]);

    // The same launch shape, arguments packed in one buffer at their aligned offsets.
    int* dout;
    HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
    struct {
        int* out;
        Pair p;
        char c;
        int n;
    } args{dout, {7, 1.5}, 2, n};
    size_t size = sizeof args;
    void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
    HIP_CHECK(hipModuleLaunchKernel(packed, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
    std::vector<int> out(n);
    HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK_THAT(out[i] == (int)(i * 1.5) + 9, "out[%d] = %d", i, out[i]);

    int regs = -1;
    HIP_CHECK(hipFuncGetAttribute(&regs, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, scale_add));
    CHECK_THAT(regs >= 256, "max threads per block %d", regs);
    CHECK_THAT(hipModuleLoadData(&from_memory, "not ptx") == hipErrorInvalidImage, "garbage image");
    HIP_CHECK(hipModuleUnload(from_file));
    HIP_CHECK(hipModuleUnload(from_memory));
    CHECK_THAT(hipModuleLaunchKernel(scale_add, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr) == hipErrorInvalidHandle,
               "a function of an unloaded module");
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
    HIP_CHECK(hipFree(dout));
    std::printf("Validation passed\n");
    return 0;
}
