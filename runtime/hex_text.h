// `0x1f`: how the runners and the GPU models write addresses and words in
// their messages.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace ptoas {

inline std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace ptoas
