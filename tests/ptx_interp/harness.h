// Helpers for the PTX interpreter's tests: a kernel from a body, a launch
// over host vectors, the fault of a run.
#pragma once
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fref.h"
#include "ptx/ptx.h"

namespace ptxt {

using namespace ptoas::ptx;

// A module with one entry `k` of `ntid` threads, parameters `params` (the
// text inside the parentheses) and `body` (declarations and instructions).
inline std::string kernel(const std::string& params, const std::string& body, unsigned ntid = 32,
                          const std::string& target = "sm_80", const std::string& module_scope = "") {
  return ".version 7.0\n.target " + target + "\n.address_size 64\n" + module_scope + "\n.visible .entry k(" + params +
         ")\n.reqntid " + std::to_string(ntid) + ", 1, 1\n{\n" + body + "\n}\n";
}

inline uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

struct Result {
  bool parsed = false;
  bool ok = false;
  std::string parse_error;
  Fault fault;
  LaunchStats stats;
};

// Parses `text` and launches `entry` over `grid` blocks with `args` and the
// buffers.
inline Result run(const std::string& text, std::vector<uint64_t> args, std::vector<Buffer> bufs, unsigned grid = 1,
                  const std::string& entry = "k", LaunchOptions opts = LaunchOptions()) {
  Result r;
  auto p = Program::parse(text, r.parse_error);
  if (!p) return r;
  r.parsed = true;
  opts.grid[0] = grid;
  r.ok = launch(*p, entry, args, bufs, opts, r.fault, &r.stats);
  return r;
}

template <class T>
Buffer buf(std::vector<T>& v) {
  return Buffer{v.data(), v.size() * sizeof(T)};
}

#define REQUIRE_RUN(res)                                              \
  do {                                                                \
    INFO("parse: " << (res).parse_error);                             \
    INFO("fault: " << (res).fault.message);                           \
    REQUIRE((res).parsed);                                            \
    REQUIRE((res).ok);                                                \
  } while (0)

#define REQUIRE_FAULT(res, want_kind)                                      \
  do {                                                                \
    INFO("parse: " << (res).parse_error);                             \
    INFO("fault: " << (res).fault.message);                           \
    REQUIRE((res).parsed);                                            \
    REQUIRE(!(res).ok);                                               \
    REQUIRE((res).fault.kind == (want_kind));                              \
  } while (0)

}  // namespace ptxt
