// .npy reader and writer. The header is a Python dict literal; we parse the
// small subset numpy writes ({'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }) with a bounds-checked cursor, so that a truncated or
// garbage file is an error message, never a crash.
#include "npy.h"

#include "file_output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <unistd.h>

namespace ptoas::rt {

int64_t NpyArray::elems() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string_view npy_descr(DType d) {
  switch (d) {
    case DType::F32: return "<f4";
    case DType::F64: return "<f8";
    case DType::F16: return "<f2";
    case DType::BF16: return "<u2";
    case DType::I1: return "|b1";
    case DType::I8: return "|i1";
    case DType::U8: return "|u1";
    case DType::I16: return "<i2";
    case DType::U16: return "<u2";
    case DType::I32: return "<i4";
    case DType::U32: return "<u4";
    case DType::I64: case DType::Index: return "<i8";
    case DType::U64: return "<u8";
    case DType::F8E4M3: case DType::F8E4M3FN: case DType::F8E5M2: return "|u1";
    default: return "";
  }
}

DType npy_parse_descr(std::string_view s) {
  if (s.size() < 2) return DType::None;
  char order = s[0];
  std::string_view t = s.substr(1);
  // One-byte types carry '|' (numpy also accepts '<', '>' and '=' for them).
  if (t == "b1" || t == "?") return order == '>' || order == '<' || order == '|' || order == '=' ? DType::I1 : DType::None;
  if (t == "i1") return DType::I8;
  if (t == "u1") return DType::U8;
  if (order != '<' && order != '=') return DType::None;  // '>' big-endian, '|' on a wide type
  if (t == "f4") return DType::F32;
  if (t == "f8") return DType::F64;
  if (t == "f2") return DType::F16;
  if (t == "i2") return DType::I16;
  if (t == "u2") return DType::U16;
  if (t == "i4") return DType::I32;
  if (t == "u4") return DType::U32;
  if (t == "i8") return DType::I64;
  if (t == "u8") return DType::U64;
  return DType::None;
}

bool npy_dtype_matches(DType param, DType array) {
  if (param == array) return true;
  switch (param) {
    case DType::BF16: return array == DType::U16;
    case DType::F8E4M3: case DType::F8E4M3FN: case DType::F8E5M2: return array == DType::U8;
    case DType::Index: return array == DType::I64;
    default: return false;
  }
}

namespace {

// A cursor over the header text.
struct Cur {
  std::string_view s;
  size_t i = 0;
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool word(std::string_view w) {
    ws();
    if (s.substr(i, w.size()) == w) {
      i += w.size();
      return true;
    }
    return false;
  }
  bool str(std::string& out) {
    ws();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return false;
    char q = s[i++];
    size_t b = i;
    while (i < s.size() && s[i] != q) {
      if (s[i] == '\\') return false;  // numpy never escapes in these keys
      ++i;
    }
    if (i >= s.size()) return false;
    out.assign(s.substr(b, i - b));
    ++i;
    return true;
  }
  bool integer(int64_t& v) {
    ws();
    size_t b = i;
    v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) return false;
      v = v * 10 + (s[i] - '0');
      ++i;
    }
    if (i == b) return false;
    if (i < s.size() && s[i] == 'L') ++i;  // Python 2 longs
    return true;
  }
};

bool parse_header(std::string_view h, std::string& descr, bool& fortran,
                  std::vector<int64_t>& shape, std::string& err) {
  Cur c{h};
  bool have_descr = false, have_fortran = false, have_shape = false;
  if (!c.eat('{')) {
    err = "the header is not a Python dict";
    return false;
  }
  while (!c.eat('}')) {
    std::string key;
    if (!c.str(key) || !c.eat(':')) {
      err = "malformed header dict";
      return false;
    }
    if (key == "descr") {
      c.ws();
      if (c.i < h.size() && c.s[c.i] == '[') {
        err = "structured dtypes are not supported";
        return false;
      }
      if (!c.str(descr)) {
        err = "malformed 'descr' in the header";
        return false;
      }
      have_descr = true;
    } else if (key == "fortran_order") {
      if (c.word("True")) fortran = true;
      else if (c.word("False")) fortran = false;
      else {
        err = "malformed 'fortran_order' in the header";
        return false;
      }
      have_fortran = true;
    } else if (key == "shape") {
      if (!c.eat('(')) {
        err = "malformed 'shape' in the header";
        return false;
      }
      shape.clear();
      while (!c.eat(')')) {
        int64_t v;
        if (!c.integer(v)) {
          err = "malformed 'shape' in the header";
          return false;
        }
        if (shape.size() >= 32) {
          err = "too many dimensions in 'shape' (at most 32)";
          return false;
        }
        shape.push_back(v);
        if (!c.eat(',')) {
          if (!c.eat(')')) {
            err = "malformed 'shape' in the header";
            return false;
          }
          break;
        }
      }
      have_shape = true;
    } else {
      err = "unexpected key '" + key + "' in the header";
      return false;
    }
    if (!c.eat(',')) {
      if (!c.eat('}')) {
        err = "malformed header dict";
        return false;
      }
      break;
    }
  }
  if (!have_descr || !have_fortran || !have_shape) {
    err = std::string("the header lacks '") +
          (!have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape") + "'";
    return false;
  }
  return true;
}

}  // namespace

namespace {

// The fixed prefix of p[0..size): magic, version, header length; `hstart`
// is where the header dict starts (10 or 12).
bool parse_prefix(const uint8_t* p, size_t size, size_t& hstart, uint64_t& hlen, std::string& err) {
  static const char kMagic[] = "\x93NUMPY";
  if (size < 10 || std::memcmp(p, kMagic, 6) != 0) {
    err = "not a .npy file (bad magic)";
    return false;
  }
  unsigned major = p[6];
  if (major == 1) {
    hlen = uint64_t(p[8]) | uint64_t(p[9]) << 8;
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) {
      err = "truncated .npy header";
      return false;
    }
    hlen = uint64_t(p[8]) | uint64_t(p[9]) << 8 | uint64_t(p[10]) << 16 | uint64_t(p[11]) << 24;
    hstart = 12;
  } else {
    err = "unsupported .npy version " + std::to_string(major) + "." + std::to_string(p[7]);
    return false;
  }
  return true;
}

// The prefix and header dict of p[0..size) (which holds at least both):
// the array's type and shape, where its data starts, and how many bytes it
// has (UINT64_MAX when that overflows 64 bits).
bool parse_image_header(const uint8_t* p, size_t size, NpyArray& out, size_t& data_at, uint64_t& need,
                        std::string& err) {
  size_t hstart;
  uint64_t hlen;
  if (!parse_prefix(p, size, hstart, hlen, err)) return false;
  if (hlen > size - hstart) {
    err = "truncated .npy header";
    return false;
  }
  std::string_view h(reinterpret_cast<const char*>(p + hstart), size_t(hlen));
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  if (!parse_header(h, descr, fortran, shape, err)) {
    err = "bad .npy header: " + err;
    return false;
  }
  DType dt = npy_parse_descr(descr);
  if (dt == DType::None) {
    err = "unsupported .npy dtype '" + descr + "'" +
          (descr.size() > 1 && descr[0] == '>' ? " (big-endian arrays are not supported)" : "");
    return false;
  }
  if (fortran) {
    err = "Fortran-order arrays are not supported; save a C-order array (numpy.ascontiguousarray)";
    return false;
  }
  need = dtype_bytes(dt);
  bool zero = false;
  for (int64_t d : shape) zero |= d == 0;
  if (zero) need = 0;
  else
    for (int64_t d : shape)
      if (need != UINT64_MAX && __builtin_mul_overflow(need, uint64_t(d), &need)) need = UINT64_MAX;
  out.dtype = dt;
  out.shape = std::move(shape);
  data_at = hstart + size_t(hlen);
  return true;
}

std::string truncated_data(uint64_t need, uint64_t avail) {
  if (need == UINT64_MAX) return "truncated .npy data: the shape needs more bytes than the file holds";
  return "truncated .npy data: expected " + std::to_string(need) + " bytes, the file holds " + std::to_string(avail);
}

}  // namespace

bool npy_parse(const uint8_t* p, size_t size, NpyArray& out, std::string& err) {
  NpyArray a;
  size_t data_at;
  uint64_t need;
  if (!parse_image_header(p, size, a, data_at, need, err)) return false;
  uint64_t avail = size - data_at;
  if (need != avail) {
    err = need > avail ? truncated_data(need, avail)
                       : "the .npy file has " + std::to_string(avail - need) + " bytes after the array data";
    return false;
  }
  a.data.assign(p + data_at, p + size);
  out = std::move(a);
  return true;
}

bool npy_serialize(const NpyArray& a, std::string& out, std::string& err) {
  std::string_view descr = npy_descr(a.dtype);
  if (descr.empty()) {
    err = "element type " + std::string(dtype_name(a.dtype)) + " has no .npy equivalent";
    return false;
  }
  uint64_t n = 1;
  for (int64_t d : a.shape) {
    if (d < 0) {
      err = "negative dimension in the array shape";
      return false;
    }
    n *= uint64_t(d);
  }
  if (n * dtype_bytes(a.dtype) != a.data.size()) {
    err = "the array holds " + std::to_string(a.data.size()) + " bytes but its shape needs " +
          std::to_string(n * dtype_bytes(a.dtype));
    return false;
  }
  std::string h = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < a.shape.size(); ++i) {
    if (i) h += ", ";
    h += std::to_string(a.shape[i]);
  }
  if (a.shape.size() == 1) h += ",";
  h += "), }";
  bool v2 = h.size() + 1 + 10 > 65535;
  size_t pre = v2 ? 12 : 10;
  size_t total = pre + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h += '\n';
  out.clear();
  out.reserve(pre + h.size() + a.data.size());
  out.append("\x93NUMPY", 6);
  out += char(v2 ? 2 : 1);
  out += char(0);
  size_t hl = h.size();
  out += char(hl & 0xff);
  out += char((hl >> 8) & 0xff);
  if (v2) {
    out += char((hl >> 16) & 0xff);
    out += char((hl >> 24) & 0xff);
  }
  out += h;
  out.append(reinterpret_cast<const char*>(a.data.data()), a.data.size());
  return true;
}

bool npy_read(const std::string& path, NpyArray& out, std::string& err, bool* missing) {
  if (missing) *missing = false;
  // Through the bounded reader (asm/file_output.h), in steps: the prefix,
  // the header, then exactly the bytes the header says the array has
  // (checked against the input limit before anything is allocated, and
  // read straight into the array), then one more to see that the file ends
  // there. /dev/zero fails at its magic; a header promising terabytes fails
  // before a byte of data is read.
  BoundedInput in;
  std::string why;
  ReadStatus st = in.open(path, why);
  auto fail = [&](const std::string& msg) {
    err = msg;
    return false;
  };
  if (st == ReadStatus::CannotOpen) {
    if (missing) *missing = true;
    return fail("cannot open '" + path + "': " + why);
  }
  auto read_error = [&]() { return fail("cannot read '" + path + "': " + why); };
  auto too_large = [&]() { return fail("cannot read '" + path + "': " + too_large_message(in.limit())); };
  if (st != ReadStatus::Ok) return read_error();
  size_t got = 0;
  auto read = [&](void* p, size_t n) { return (st = in.read(p, n, got, why)) == ReadStatus::Ok; };
  try {
    std::string head(12, '\0');
    if (!read(head.data(), 10)) return read_error();
    size_t have = got;
    if (have == 10 && (head[6] == 2 || head[6] == 3)) {
      if (!read(head.data() + 10, 2)) return read_error();
      have += got;
    }
    size_t hstart;
    uint64_t hlen;
    if (!parse_prefix(reinterpret_cast<const uint8_t*>(head.data()), have, hstart, hlen, err))
      return fail(path + ": " + err);
    if (hlen > in.limit()) return too_large();
    head.resize(hstart + size_t(hlen));
    if (!read(head.data() + hstart, size_t(hlen))) return st == ReadStatus::TooLarge ? too_large() : read_error();
    head.resize(hstart + got);
    NpyArray a;
    size_t data_at;
    uint64_t need;
    if (!parse_image_header(reinterpret_cast<const uint8_t*>(head.data()), head.size(), a, data_at, need, err))
      return fail(path + ": " + err);
    // A regular file's size tells at once whether the data is all there.
    int64_t size = in.regular_size();
    if (size > 0 && uint64_t(size) >= in.consumed() && need > uint64_t(size) - in.consumed())
      return fail(path + ": " + truncated_data(need, uint64_t(size) - in.consumed()));
    if (need > in.limit() - in.consumed()) return too_large();
    a.data.resize(size_t(need));
    if (!read(a.data.data(), size_t(need))) return read_error();
    if (got < need) return fail(path + ": " + truncated_data(need, got));
    char extra;
    if (!read(&extra, 1) && st != ReadStatus::TooLarge) return read_error();
    if (st == ReadStatus::TooLarge || got) return fail(path + ": the .npy file has bytes after the array data");
    out = std::move(a);
  } catch (const std::bad_alloc&) {
    return fail("cannot read '" + path + "': out of memory");
  }
  return true;
}

bool npy_write(const std::string& path, const NpyArray& a, std::string& err) {
  std::string img;
  if (!npy_serialize(a, img, err)) {
    err = "cannot write '" + path + "': " + err;
    return false;
  }
  return write_file_atomic(path, img, "ptorun", err);
}

}  // namespace ptoas::rt
