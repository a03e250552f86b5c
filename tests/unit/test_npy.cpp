// .npy I/O (runtime/npy.cpp): round trips for every dtype, headers as numpy
// writes them, and every malformed input rejected with a message (never a
// crash).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "npy.h"

using namespace ptoas;
using namespace ptoas::rt;

namespace {

NpyArray make(DType d, std::vector<int64_t> shape) {
  NpyArray a;
  a.dtype = d;
  a.shape = std::move(shape);
  a.data.resize(size_t(a.elems()) * dtype_bytes(d));
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = uint8_t(i * 7 + 3);
  return a;
}

std::string image(const NpyArray& a) {
  std::string out, err;
  REQUIRE(npy_serialize(a, out, err));
  return out;
}

// A v1 image with a hand-written header (padded to 64 like numpy).
std::string raw_v1(std::string header, const std::string& data) {
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string s("\x93NUMPY\x01\x00", 8);
  s += char(header.size() & 0xff);
  s += char(header.size() >> 8);
  return s + header + data;
}

bool parse(const std::string& s, NpyArray& a, std::string& err) {
  return npy_parse(reinterpret_cast<const uint8_t*>(s.data()), s.size(), a, err);
}

std::string parse_error(const std::string& s) {
  NpyArray a;
  std::string err;
  CHECK_FALSE(parse(s, a, err));
  CHECK_FALSE(err.empty());
  return err;
}

std::string tmp_path(const char* name) {
  return std::string("/tmp/ptoas_test_npy_") + std::to_string(::getpid()) + "_" + name;
}

}  // namespace

TEST_CASE("npy: descriptors of every element type", "[npy]") {
  CHECK(npy_descr(DType::F32) == "<f4");
  CHECK(npy_descr(DType::F16) == "<f2");
  CHECK(npy_descr(DType::BF16) == "<u2");
  CHECK(npy_descr(DType::F64) == "<f8");
  CHECK(npy_descr(DType::I8) == "|i1");
  CHECK(npy_descr(DType::U8) == "|u1");
  CHECK(npy_descr(DType::I16) == "<i2");
  CHECK(npy_descr(DType::U16) == "<u2");
  CHECK(npy_descr(DType::I32) == "<i4");
  CHECK(npy_descr(DType::U32) == "<u4");
  CHECK(npy_descr(DType::I64) == "<i8");
  CHECK(npy_descr(DType::U64) == "<u8");
  CHECK(npy_descr(DType::None).empty());

  CHECK(npy_parse_descr("<f4") == DType::F32);
  CHECK(npy_parse_descr("=f4") == DType::F32);
  CHECK(npy_parse_descr("<u2") == DType::U16);
  CHECK(npy_parse_descr("|i1") == DType::I8);
  CHECK(npy_parse_descr("|u1") == DType::U8);
  CHECK(npy_parse_descr("|b1") == DType::I1);
  CHECK(npy_parse_descr(">f4") == DType::None);
  CHECK(npy_parse_descr("<c8") == DType::None);
  CHECK(npy_parse_descr("<U4") == DType::None);
  CHECK(npy_parse_descr("") == DType::None);

  // bf16 travels as <u2; u16 is its own type.
  CHECK(npy_dtype_matches(DType::BF16, DType::U16));
  CHECK(npy_dtype_matches(DType::U16, DType::U16));
  CHECK_FALSE(npy_dtype_matches(DType::F16, DType::U16));
  CHECK_FALSE(npy_dtype_matches(DType::F32, DType::I32));
  CHECK_FALSE(npy_dtype_matches(DType::U16, DType::BF16));
  CHECK(npy_dtype_matches(DType::F8E4M3, DType::U8));
}

TEST_CASE("npy: round trip of every dtype and shape class", "[npy]") {
  const DType types[] = {DType::F32, DType::F16, DType::F64, DType::I8,  DType::U8,
                         DType::I16, DType::U16, DType::I32, DType::U32, DType::I64,
                         DType::U64, DType::I1};
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {1}, {7}, {3, 5}, {2, 0, 4}, {2, 3, 4, 5}};
  for (DType d : types)
    for (const auto& sh : shapes) {
      INFO(std::string(dtype_name(d)) << " rank " << sh.size());
      NpyArray a = make(d, sh);
      std::string img = image(a);
      CHECK(img.compare(0, 6, "\x93NUMPY") == 0);
      size_t hl = size_t((unsigned char)img[8]) | size_t((unsigned char)img[9]) << 8;
      CHECK((10 + hl) % 64 == 0);  // data aligned like numpy's
      CHECK(img[10 + hl - 1] == '\n');
      NpyArray b;
      std::string err;
      REQUIRE(parse(img, b, err));
      CHECK(b.dtype == a.dtype);
      CHECK(b.shape == a.shape);
      CHECK(b.data == a.data);
      // Kernels get the array's own bytes: on a cache-line boundary.
      if (!b.data.empty()) CHECK(reinterpret_cast<uintptr_t>(b.data.data()) % 64 == 0);
    }
}

TEST_CASE("npy: bf16 writes as u2 and reads back as u16", "[npy]") {
  NpyArray a = make(DType::BF16, {4});
  std::string img = image(a);
  CHECK(img.find("'descr': '<u2'") != std::string::npos);
  NpyArray b;
  std::string err;
  REQUIRE(parse(img, b, err));
  CHECK(b.dtype == DType::U16);
  CHECK(b.data == a.data);
}

TEST_CASE("npy: headers as numpy writes them", "[npy]") {
  NpyArray a;
  std::string err;
  std::string data(12, '\0');
  // numpy's own spelling, 1-d with trailing comma.
  REQUIRE(parse(raw_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", data), a, err));
  CHECK(a.dtype == DType::F32);
  CHECK(a.shape == std::vector<int64_t>{3});
  // Keys in another order, double quotes, no trailing comma, Python 2 longs.
  REQUIRE(parse(raw_v1("{\"shape\": (3L, 1L), \"fortran_order\": False, \"descr\": \"<i4\"}", data), a, err));
  CHECK(a.dtype == DType::I32);
  CHECK(a.shape == std::vector<int64_t>{3, 1});
  // 0-d.
  REQUIRE(parse(raw_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", std::string(8, 'x')), a, err));
  CHECK(a.shape.empty());
  CHECK(a.elems() == 1);
  // A 1-d array numpy flags Fortran-contiguous is still written C order
  // (fortran_order False); a real Fortran array is refused.
  // Version 2.0 (4-byte header length).
  std::string h = "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }";
  size_t total = 12 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h += '\n';
  std::string v2("\x93NUMPY\x02\x00", 8);
  v2 += char(h.size() & 0xff);
  v2 += char(h.size() >> 8);
  v2 += '\0';
  v2 += '\0';
  v2 += h + "abcde";
  REQUIRE(parse(v2, a, err));
  CHECK(a.dtype == DType::U8);
  CHECK(std::string(a.data.begin(), a.data.end()) == "abcde");
}

TEST_CASE("npy: malformed files are rejected with a message", "[npy]") {
  std::string data(12, '\0');
  CHECK(parse_error("") .find("bad magic") != std::string::npos);
  CHECK(parse_error("\x93NUMPX\x01\x00\x00\x00").find("bad magic") != std::string::npos);
  CHECK(parse_error(std::string("\x93NUMPY\x07\x00\x10\x00", 10)).find("version") != std::string::npos);
  // Header length past the end.
  CHECK(parse_error(std::string("\x93NUMPY\x01\x00\xff\x00{", 11)).find("truncated") != std::string::npos);
  CHECK(parse_error(raw_v1("{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }", data))
            .find("Fortran") != std::string::npos);
  CHECK(parse_error(raw_v1("{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", data))
            .find("big-endian") != std::string::npos);
  CHECK(parse_error(raw_v1("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }", data))
            .find("structured") != std::string::npos);
  CHECK(parse_error(raw_v1("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", data))
            .find("unsupported .npy dtype '<c8'") != std::string::npos);
  CHECK(parse_error(raw_v1("{'descr': '<f4', 'shape': (3,), }", data)).find("fortran_order") !=
        std::string::npos);
  CHECK(parse_error(raw_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3, }", data))
            .find("shape") != std::string::npos);
  CHECK(parse_error(raw_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }", data))
            .find("shape") != std::string::npos);
  CHECK(parse_error(raw_v1("['descr']", data)).find("dict") != std::string::npos);
  CHECK(parse_error(raw_v1("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,), }", data))
            .find("fortran_order") != std::string::npos);
  // Data shorter or longer than the shape says.
  CHECK(parse_error(raw_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", data))
            .find("truncated") != std::string::npos);
  CHECK(parse_error(raw_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data))
            .find("after the array data") != std::string::npos);
  // Shapes whose element count overflows 64 bits.
  CHECK(parse_error(raw_v1("{'descr': '<f4', 'fortran_order': False, 'shape': "
                           "(4294967296, 4294967296, 4294967296), }",
                           data))
            .find("truncated") != std::string::npos);
  CHECK(parse_error(raw_v1("{'descr': '<f4', 'fortran_order': False, 'shape': "
                           "(99999999999999999999999,), }",
                           data))
            .find("shape") != std::string::npos);
}

TEST_CASE("npy: truncations and random corruption never crash", "[npy]") {
  NpyArray a = make(DType::F32, {3, 5});
  std::string img = image(a);
  for (size_t n = 0; n < img.size(); ++n) {
    NpyArray b;
    std::string err;
    CHECK_FALSE(parse(img.substr(0, n), b, err));
  }
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 3000; ++iter) {
    std::string s = img;
    int flips = 1 + int(rng() % 4);
    for (int k = 0; k < flips; ++k) s[rng() % s.size()] = char(rng());
    if (rng() % 3 == 0) s.resize(rng() % s.size());
    NpyArray b;
    std::string err;
    bool ok = parse(s, b, err);
    if (ok) CHECK(b.data.size() == size_t(b.elems()) * dtype_bytes(b.dtype));
    else CHECK_FALSE(err.empty());
  }
}

TEST_CASE("npy: files are read and written through a temporary and missing ones reported", "[npy]") {
  std::string p = tmp_path("a.npy");
  NpyArray a = make(DType::I16, {2, 3});
  std::string err;
  REQUIRE(npy_write(p, a, err));
  NpyArray b;
  bool missing = true;
  REQUIRE(npy_read(p, b, err, &missing));
  CHECK_FALSE(missing);
  CHECK(b.data == a.data);
  CHECK(b.shape == a.shape);
  std::remove(p.c_str());

  CHECK_FALSE(npy_read(p, b, err, &missing));
  CHECK(missing);
  CHECK(err.find("cannot open") != std::string::npos);

  // A bad shape/data pair is refused and writes nothing.
  NpyArray bad = make(DType::F32, {4});
  bad.data.pop_back();
  CHECK_FALSE(npy_write(p, bad, err));
  CHECK(std::fopen(p.c_str(), "rb") == nullptr);
  // A directory that does not exist.
  CHECK_FALSE(npy_write("/nonexistent-dir-ptoas/x.npy", a, err));
  CHECK(err.find("cannot write") != std::string::npos);

  // Garbage on disk: an error naming the file, not "missing".
  FILE* f = std::fopen(p.c_str(), "wb");
  REQUIRE(f);
  std::fputs("this is not numpy", f);
  std::fclose(f);
  CHECK_FALSE(npy_read(p, b, err, &missing));
  CHECK_FALSE(missing);
  CHECK(err.find(p) != std::string::npos);
  std::remove(p.c_str());
}

namespace {
// Writes `s` to a fresh file; returns its path.
std::string write_tmp(const char* name, const std::string& s) {
  std::string p = tmp_path(name);
  FILE* f = std::fopen(p.c_str(), "wb");
  REQUIRE(f);
  std::fwrite(s.data(), 1, s.size(), f);
  std::fclose(f);
  return p;
}
}  // namespace

TEST_CASE("npy: reads are bounded by the input limit, header first", "[npy]") {
  NpyArray b;
  std::string err;
  bool missing = true;
  // /dev/zero: the magic is wrong after 10 bytes; nothing more is read.
  CHECK_FALSE(npy_read("/dev/zero", b, err, &missing));
  CHECK_FALSE(missing);
  CHECK(err.find("bad magic") != std::string::npos);

  // A header that asks for more than the limit: refused before the data is
  // read or allocated (the file here holds 64 bytes of data).
  std::string data(64, '\0');
  std::string p = write_tmp("huge.npy",
                            raw_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, 1048576), }", data));
  CHECK_FALSE(npy_read(p, b, err));
  CHECK(err.find("truncated .npy data") != std::string::npos);  // a regular file: its size says so
  std::remove(p.c_str());

  // The limit from PTOAS_MAX_INPUT_BYTES: a file of N bytes reads under a
  // limit of N and fails under N - 1.
  NpyArray a = make(DType::F32, {16});
  std::string img = image(a);
  p = write_tmp("limit.npy", img);
  ::setenv("PTOAS_MAX_INPUT_BYTES", std::to_string(img.size()).c_str(), 1);
  CHECK(npy_read(p, b, err));
  CHECK(b.data == a.data);
  ::setenv("PTOAS_MAX_INPUT_BYTES", std::to_string(img.size() - 1).c_str(), 1);
  CHECK_FALSE(npy_read(p, b, err));
  CHECK(err.find("larger than the input limit of " + std::to_string(img.size() - 1) + " bytes") != std::string::npos);
  ::unsetenv("PTOAS_MAX_INPUT_BYTES");
  std::remove(p.c_str());

  // Bytes after the data, and data cut short, through the file reader.
  p = write_tmp("extra.npy", img + "x");
  CHECK_FALSE(npy_read(p, b, err));
  CHECK(err.find("bytes after the array data") != std::string::npos);
  std::remove(p.c_str());
  p = write_tmp("short.npy", img.substr(0, img.size() - 1));
  CHECK_FALSE(npy_read(p, b, err));
  CHECK(err.find("truncated .npy data: expected 64 bytes, the file holds 63") != std::string::npos);
  std::remove(p.c_str());
  // A v2 header and an empty array read back.
  NpyArray e = make(DType::I32, {0, 3});
  p = write_tmp("empty.npy", image(e));
  REQUIRE(npy_read(p, b, err));
  CHECK(b.shape == e.shape);
  CHECK(b.data.empty());
  std::remove(p.c_str());
}

TEST_CASE("npy: the file reader agrees with npy_parse on every truncation and corruption", "[npy]") {
  NpyArray a = make(DType::F32, {3, 5});
  std::string img = image(a);
  std::mt19937 rng(99);
  std::string p = tmp_path("agree.npy");
  for (int iter = 0; iter < 400; ++iter) {
    std::string s = img;
    if (iter % 2) s[rng() % s.size()] = char(rng());
    if (iter % 3 == 0) s.resize(rng() % s.size());
    write_tmp("agree.npy", s);
    NpyArray x, y;
    std::string ex, ey;
    bool in_memory = parse(s, x, ex);
    bool from_file = npy_read(p, y, ey);
    CHECK(in_memory == from_file);
    if (in_memory && from_file) {
      CHECK(x.shape == y.shape);
      CHECK(x.data == y.data);
    }
  }
  std::remove(p.c_str());
}
