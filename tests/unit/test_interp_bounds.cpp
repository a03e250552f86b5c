// Interpreter: untrusted numbers that meet an address (issue 18): tile
// offsets near INT64_MAX in textract / tinsert / subset, byte offsets that
// wrap in tgatherb, explicit tile addresses. Each is a located runtime
// error, never an access outside the tile arena.
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>

#include "interp_harness.h"

namespace {
const long long kMax = LLONG_MAX;
}

TEST_CASE("interp textract with a row offset near INT64_MAX is an error", "[interp][bounds]") {
  for (long long r0 : {kMax, kMax - 1, kMax - 7, (long long)INT32_MAX + 1}) {
    ih::Kernel k;
    std::string S = ih::tile("vec", 8, 8, "f32");
    std::string D = ih::tile("vec", 2, 8, "f32");
    int ix = k.buf(std::vector<float>(64, 1));
    k.load("%x", S, ix, 8, 8);
    k.alloc("%d", D);
    k.op("pto.textract ins(%x, " + k.c(r0) + ", " + k.c(0) + " : " + S + ", index, index) outs(%d : " + D + ")");
    IH_FAILS(k, "textract");
  }
}

TEST_CASE("interp tinsert with a row or column offset near INT64_MAX is an error", "[interp][bounds]") {
  for (int col = 0; col < 2; ++col)
    for (long long off : {kMax, kMax - 1, kMax - 63}) {
      ih::Kernel k;
      k.arch = "a5";  // vec -> vec tinsert
      std::string S = ih::tile("vec", 2, 8, "f32");
      std::string D = ih::tile("vec", 8, 8, "f32");
      int is = k.buf(std::vector<float>(16, 7)), id = k.buf(std::vector<float>(64, 0));
      k.load("%s", S, is, 2, 8);
      k.load("%z", D, id, 8, 8);
      std::string r = col ? k.c(0) : k.c(off), c = col ? k.c(off) : k.c(0);
      k.op("pto.tinsert ins(%s, " + r + ", " + c + " : " + S + ", index, index) outs(%z : " + D + ")");
      k.store("%z", D, id, 8, 8);
      IH_FAILS(k, "tinsert");
      for (float v : k.get<float>(id)) CHECK(v == 0);
    }
}

TEST_CASE("interp subset with an offset near INT64_MAX is an error", "[interp][bounds]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 8, 8, "f32");
  std::string D = ih::tile("vec", 2, 8, "f32");
  int ix = k.buf(std::vector<float>(64, 1));
  k.load("%x", S, ix, 8, 8);
  k.op("%sub = pto.subset %x[" + k.c(kMax - 1) + ", " + k.c(0) + "] sizes [2, 8] : " + S);
  k.store("%sub", D, ix, 2, 8);
  IH_FAILS(k, "subset window is outside the tile");
}

TEST_CASE("interp an explicit tile address that is negative or past the arena is an error", "[interp][bounds]") {
  for (long long addr : {-1LL, -64LL, kMax, kMax - 1000, 1LL << 40}) {
    ih::Kernel k;
    k.level3 = true;
    std::string T = ih::tile("vec", 8, 8, "f32");
    // Through the block index (0 at run time), so the front end's rule on
    // constant addresses does not see it and the interpreter's check runs.
    k.scalar("%base", "i64", std::to_string(addr));
    k.line("%bid = pto.get_block_idx");
    k.line("%addr = arith.addi %base, %bid : i64");
    k.line("%t = pto.alloc_tile addr = %addr : " + T);
    IH_FAILS(k, "tile at addr");
  }
}
