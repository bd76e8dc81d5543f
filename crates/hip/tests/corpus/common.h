// Shared by the corpus programs: error checking as HIP samples do it.
#pragma once
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(expr)                                                                    \
    do {                                                                                   \
        hipError_t status_ = (expr);                                                       \
        if (status_ != hipSuccess) {                                                       \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #expr, \
                         hipGetErrorString(status_), hipGetErrorName(status_));            \
            std::exit(EXIT_FAILURE);                                                       \
        }                                                                                  \
    } while (0)

#define CHECK_THAT(cond, ...)                                      \
    do {                                                           \
        if (!(cond)) {                                             \
            std::fprintf(stderr, "check failed: %s: ", #cond);     \
            std::fprintf(stderr, __VA_ARGS__);                     \
            std::fprintf(stderr, "\n");                            \
            std::exit(EXIT_FAILURE);                               \
        }                                                          \
    } while (0)

// A small deterministic generator (xorshift), so host and device inputs are reproducible.
struct Rng {
    unsigned long long s;
    explicit Rng(unsigned long long seed) : s(seed * 0x9E3779B97F4A7C15ull | 1) {}
    unsigned int next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return (unsigned int)(s >> 16);
    }
    float uniform() { return (next() >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f; }
};
