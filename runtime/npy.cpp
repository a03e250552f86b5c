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

bool npy_parse(const uint8_t* p, size_t size, NpyArray& out, std::string& err) {
  static const char kMagic[] = "\x93NUMPY";
  if (size < 10 || std::memcmp(p, kMagic, 6) != 0) {
    err = "not a .npy file (bad magic)";
    return false;
  }
  unsigned major = p[6];
  size_t hlen, hstart;
  if (major == 1) {
    hlen = size_t(p[8]) | size_t(p[9]) << 8;
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) {
      err = "truncated .npy header";
      return false;
    }
    hlen = size_t(p[8]) | size_t(p[9]) << 8 | size_t(p[10]) << 16 | size_t(p[11]) << 24;
    hstart = 12;
  } else {
    err = "unsupported .npy version " + std::to_string(major) + "." + std::to_string(p[7]);
    return false;
  }
  if (hlen > size - hstart) {
    err = "truncated .npy header";
    return false;
  }
  std::string_view h(reinterpret_cast<const char*>(p + hstart), hlen);
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
  size_t esize = dtype_bytes(dt);
  size_t avail = size - hstart - hlen;
  // Element count, guarding against overflow: no valid file holds more
  // elements than it has bytes.
  uint64_t n = 1;
  bool zero = false;
  for (int64_t d : shape) zero |= d == 0;
  if (!zero)
    for (int64_t d : shape) {
      if (uint64_t(d) > avail || n > avail / uint64_t(d)) {
        err = "truncated .npy data: the shape needs more bytes than the file holds";
        return false;
      }
      n *= uint64_t(d);
    }
  else
    n = 0;
  uint64_t need = n * esize;
  if (need != avail) {
    err = need > avail ? "truncated .npy data: expected " + std::to_string(need) +
                             " bytes, the file holds " + std::to_string(avail)
                       : "the .npy file has " + std::to_string(avail - need) +
                             " bytes after the array data";
    return false;
  }
  out.dtype = dt;
  out.shape = std::move(shape);
  out.data.assign(p + hstart + hlen, p + size);
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
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    err = "cannot open '" + path + "': " + std::strerror(errno);
    if (missing) *missing = true;
    return false;
  }
  std::vector<uint8_t> buf;
  uint8_t chunk[65536];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, f)) > 0) buf.insert(buf.end(), chunk, chunk + got);
  bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) {
    err = "cannot read '" + path + "'";
    return false;
  }
  if (!npy_parse(buf.data(), buf.size(), out, err)) {
    err = path + ": " + err;
    return false;
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
