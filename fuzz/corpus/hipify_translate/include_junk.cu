#include <cuda.h>
#include <cuda_runtime.h> extra // note
#include "device_launch_parameters.h" x
int y;
