#pragma once"
threadIdx