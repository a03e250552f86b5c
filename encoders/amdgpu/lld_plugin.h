// The C interface of libptoas_lld.so (lld_plugin.cpp), opened by
// lld_loader.cpp. Returns 0 with *out (malloc'ed, *out_size bytes: the
// linked code object), else non-zero with *err (malloc'ed message).
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {
using PtoasLldLink = int (*)(const uint8_t* obj, size_t size, uint8_t** out, size_t* out_size, char** err);
int ptoas_lld_link(const uint8_t* obj, size_t size, uint8_t** out, size_t* out_size, char** err);
}
