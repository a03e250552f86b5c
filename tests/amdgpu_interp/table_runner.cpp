// The instruction-table runner (harness.h): one kernel per chip and table
// that loads x, y, z, runs every case and stores each case's result in its
// own slice of the output.
#include <bit>
#include <cmath>

#include "harness.h"

namespace amdgpu_test {

namespace {

bool is_nan_bits(uint64_t b, int fp) {
  return fp == 32 ? std::isnan(std::bit_cast<float>(uint32_t(b))) : std::isnan(std::bit_cast<double>(b));
}

// Distance in representable values (same-sign ordering of the bit patterns).
uint64_t ulp_distance(uint64_t a, uint64_t b, int fp) {
  auto key = [&](uint64_t v) -> int64_t {
    if (fp == 32) {
      int32_t s = int32_t(uint32_t(v));
      return s < 0 ? int64_t(INT32_MIN) - s : s;
    }
    int64_t s = int64_t(v);
    return s < 0 ? INT64_MIN - s : s;
  };
  int64_t d = key(a) - key(b);
  return uint64_t(d < 0 ? -d : d);
}

}  // namespace

bool run_table(const ChipCase& c, const std::vector<OpCase>& cases, bool wide, const std::vector<uint64_t>& xs,
               const std::vector<uint64_t>& ys, const std::vector<uint64_t>& zs) {
  const unsigned n = unsigned(xs.size());
  REQUIRE(n % 64 == 0);
  REQUIRE(ys.size() == n);
  REQUIRE(zs.size() == n);
  const unsigned size = wide ? 8 : 4;
  std::ostringstream body;
  body << kPrologue;
  if (wide) body << "  v_lshlrev_b32 v2, 3, v1\n";
  body << addr64(4, 4) << addr64(6, 6) << addr64(8, 8) << addr64(16, 10);
  if (wide)
    body << "  %LD2% v[10:11], v[4:5], off\n  %LD2% v[12:13], v[6:7], off\n  %LD2% v[14:15], v[8:9], off\n";
  else
    body << "  %LD% v10, v[4:5], off\n  %LD% v11, v[6:7], off\n  %LD% v12, v[8:9], off\n";
  body << "  s_waitcnt vmcnt(0)\n";
  for (size_t j = 0; j < cases.size(); ++j) {
    body << "  ; " << cases[j].name << "\n" << cases[j].text << "\n";
    char lit[32];
    std::snprintf(lit, sizeof lit, "0x%x", unsigned(j * n * size));
    body << "  %ADDCO% v18, %VCC%, " << lit << ", v16\n  %ADDC% v19, %VCC%, 0, v17, %VCC%\n";
    body << (wide ? "  %ST2% v[18:19], v[20:21], off\n" : "  %ST% v[18:19], v20, off\n");
  }
  body << "  s_endpgm\n";
  std::map<std::string, std::string> regs;
  if (wide)
    regs = {{"D", "v[20:21]"}, {"X", "v[10:11]"}, {"Y", "v[12:13]"}, {"Z", "v[14:15]"},
            {"XL", "v10"},     {"YL", "v12"},     {"ZL", "v14"}};
  else
    regs = {{"D", "v20"}, {"X", "v10"}, {"Y", "v11"}, {"Z", "v12"}};
  auto prog = load_kernel(c, "table", body.str(), KernelOpts{0, 64, 48}, regs);

  std::vector<uint8_t> xb(n * size), yb(n * size), zb(n * size), out(cases.size() * n * size, 0xcd);
  for (unsigned i = 0; i < n; ++i) {
    std::memcpy(&xb[i * size], &xs[i], size);
    std::memcpy(&yb[i * size], &ys[i], size);
    std::memcpy(&zb[i * size], &zs[i], size);
  }
  emu::LaunchSpec ls;
  ls.kernel = "table";
  ls.grid_x = n / 64;
  ls.block_x = 64;
  ls.kernarg = Kernarg().ptr(xb.data()).ptr(yb.data()).ptr(zb.data()).ptr(out.data()).add(n).add(64u).bytes;
  ls.buffers = {{xb.data(), xb.size()}, {yb.data(), yb.size()}, {zb.data(), zb.size()}, {out.data(), out.size()}};
  emu::Stats st;
  std::string err;
  bool ok = prog->launch(ls, st, err);
  INFO(c.name << ": " << err);
  REQUIRE(ok);

  bool all = true;
  for (size_t j = 0; j < cases.size(); ++j) {
    unsigned bad = 0;
    for (unsigned i = 0; i < n && bad < 4; ++i) {
      uint64_t got = 0;
      std::memcpy(&got, &out[(j * n + i) * size], size);
      uint64_t want = cases[j].ref(xs[i], ys[i], zs[i], i);
      if (!wide) want &= 0xffffffffu;
      bool match = got == want;
      int fp = cases[j].fp;
      if (!match && fp) {
        if (is_nan_bits(want, fp))
          match = is_nan_bits(got, fp);
        else if (cases[j].ulps && !is_nan_bits(got, fp))
          match = ulp_distance(got, want, fp) <= cases[j].ulps;
      }
      if (!match) {
        ++bad;
        all = false;
        char m[256];
        std::snprintf(m, sizeof m, "%s: %s, element %u: x=0x%llx y=0x%llx z=0x%llx: got 0x%llx, want 0x%llx", c.name,
                      cases[j].name.c_str(), i, (unsigned long long)xs[i], (unsigned long long)ys[i],
                      (unsigned long long)zs[i], (unsigned long long)got, (unsigned long long)want);
        FAIL_CHECK(m);
      }
    }
  }
  return all;
}

}  // namespace amdgpu_test
