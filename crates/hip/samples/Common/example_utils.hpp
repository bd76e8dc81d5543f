// Helpers shared by ferrocm's HIP samples, in the style of the HIP example collections.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdlib>
#include <iostream>
#include <string>

// Exits with a message when a HIP call fails.
#define HIP_CHECK(condition)                                                                     \
    {                                                                                            \
        const hipError_t error = condition;                                                      \
        if (error != hipSuccess) {                                                               \
            std::cerr << "An error encountered: \"" << hipGetErrorString(error) << "\" at "      \
                      << __FILE__ << ':' << __LINE__ << std::endl;                               \
            std::exit(error_exit_code);                                                          \
        }                                                                                        \
    }

constexpr int error_exit_code = -1;

// The number of blocks of `block` elements that cover `n` elements.
template <typename T>
constexpr T ceiling_div(const T n, const T block) {
    return (n + block - 1) / block;
}

// Prints "Validation passed." or the number of mismatches, and returns the exit code.
inline int report_validation_result(int errors) {
    if (errors) {
        std::cout << "Validation failed. Errors: " << errors << std::endl;
        return error_exit_code;
    }
    std::cout << "Validation passed." << std::endl;
    return 0;
}
