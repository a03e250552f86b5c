// DWARF line-program reader (dwarf_line.h). Every read goes through Cursor,
// which stops at the end of its range and remembers that it did.
#include "dwarf_line.h"

#include <cstdio>
#include <cstring>

namespace ptoas::dis {

namespace {

// DW_FORM_* and DW_LNCT_* codes (DWARF 5 §7.5.6, §6.2.4.1).
enum : uint64_t {
  kFormBlock2 = 0x03, kFormBlock4 = 0x04, kFormData2 = 0x05, kFormData4 = 0x06,
  kFormData8 = 0x07, kFormString = 0x08, kFormBlock = 0x09, kFormBlock1 = 0x0a,
  kFormData1 = 0x0b, kFormSdata = 0x0d, kFormStrp = 0x0e, kFormUdata = 0x0f,
  kFormStrx = 0x1a, kFormData16 = 0x1e, kFormLineStrp = 0x1f, kFormStrx1 = 0x25,
  kFormStrx2 = 0x26, kFormStrx3 = 0x27, kFormStrx4 = 0x28,
};
enum : uint64_t { kLnctPath = 1, kLnctDirectoryIndex = 2 };

class Cursor {
 public:
  Cursor(std::string_view d, uint64_t pos, uint64_t end) : d_(d), pos_(pos), end_(end) {}
  bool ok() const { return ok_; }
  uint64_t pos() const { return pos_; }
  uint64_t left() const { return ok_ && pos_ < end_ ? end_ - pos_ : 0; }
  uint64_t u(unsigned n) {  // n <= 8 bytes, little-endian
    if (!take(n)) return 0;
    uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= uint64_t(uint8_t(d_[pos_ - n + i])) << (8 * i);
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (!take(1)) return 0;
      uint8_t b = uint8_t(d_[pos_ - 1]);
      if (shift < 64) v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  }
  int64_t sleb() {
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0;
    do {
      if (!take(1)) return 0;
      b = uint8_t(d_[pos_ - 1]);
      if (shift < 64) v |= uint64_t(b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= ~uint64_t(0) << shift;
    return int64_t(v);
  }
  // A NUL-terminated string in place (without the NUL).
  std::string_view cstr() {
    if (!ok_ || pos_ >= end_) {
      ok_ = false;
      return {};
    }
    const void* z = std::memchr(d_.data() + pos_, 0, end_ - pos_);
    if (!z) {
      ok_ = false;
      return {};
    }
    std::string_view s(d_.data() + pos_, size_t(static_cast<const char*>(z) - (d_.data() + pos_)));
    pos_ += s.size() + 1;
    return s;
  }
  void skip(uint64_t n) { take(n); }
  void seek(uint64_t p) {
    if (p > end_) ok_ = false;
    else pos_ = p;
  }

 private:
  bool take(uint64_t n) {
    if (!ok_ || pos_ > end_ || n > end_ - pos_) {
      ok_ = false;
      return false;
    }
    pos_ += n;
    return true;
  }
  std::string_view d_;
  uint64_t pos_, end_;
  bool ok_ = true;
};

// A NUL-terminated string at `off` of a string section; false if it is not
// one.
bool string_at(std::string_view sec, uint64_t off, std::string_view& out) {
  if (off >= sec.size()) return false;
  const char* b = sec.data() + off;
  const void* z = std::memchr(b, 0, sec.size() - off);
  if (!z) return false;
  out = std::string_view(b, size_t(static_cast<const char*>(z) - b));
  return true;
}

struct Unit {
  const DwarfSections& s;
  LineInfo& info;
  Cursor c;
  unsigned offset_size = 4;
  std::string err;

  bool fail(const std::string& why) {
    err = why;
    return false;
  }

  // One attribute value of a v5 directory/file entry: a string for the
  // string forms, a number otherwise (blocks and data16 are skipped).
  bool form(uint64_t f, std::string_view* str, uint64_t* num) {
    uint64_t v = 0;
    switch (f) {
      case kFormString: {  // read even when not wanted: it moves the cursor
        std::string_view text = c.cstr();
        if (str) *str = text;
        return c.ok();
      }
      case kFormStrp: case kFormLineStrp: {
        v = c.u(offset_size);
        if (!c.ok()) return false;
        if (str && !string_at(f == kFormStrp ? s.str : s.line_str, v, *str))
          return fail(std::string("a file name points outside ") +
                      (f == kFormStrp ? ".debug_str" : ".debug_line_str"));
        return true;
      }
      case kFormStrx: case kFormStrx1: case kFormStrx2: case kFormStrx3: case kFormStrx4:
        return fail("string index forms (DW_FORM_strx) are not supported");
      case kFormData1: v = c.u(1); break;
      case kFormData2: v = c.u(2); break;
      case kFormData4: v = c.u(4); break;
      case kFormData8: v = c.u(8); break;
      case kFormData16: c.skip(16); break;
      case kFormUdata: v = c.uleb(); break;
      case kFormSdata: v = uint64_t(c.sleb()); break;
      case kFormBlock1: c.skip(c.u(1)); break;
      case kFormBlock2: c.skip(c.u(2)); break;
      case kFormBlock4: c.skip(c.u(4)); break;
      case kFormBlock: c.skip(c.uleb()); break;
      default: {
        char h[24];
        std::snprintf(h, sizeof h, "0x%llx", (unsigned long long)f);
        return fail(std::string("unsupported attribute form ") + h);
      }
    }
    if (str) *str = info.owned.emplace_back(std::to_string(v));
    if (num) *num = v;
    return c.ok();
  }

  // A v5 entry-format list and its entries: (path, directory index) each.
  bool v5_entries(std::vector<std::pair<std::string_view, uint64_t>>& out) {
    uint64_t nfmt = c.u(1);
    std::vector<std::pair<uint64_t, uint64_t>> fmt;
    for (uint64_t i = 0; i < nfmt && c.ok(); ++i) {
      uint64_t type = c.uleb();
      uint64_t f = c.uleb();
      fmt.push_back({type, f});
    }
    uint64_t count = c.uleb();
    if (!c.ok()) return false;
    // Each entry takes at least one byte unless its format is empty.
    if (!fmt.empty() && count > c.left()) return fail("entry count larger than the header");
    if (fmt.empty() && count > 0) return fail("entries without a format");
    for (uint64_t i = 0; i < count; ++i) {
      std::pair<std::string_view, uint64_t> e{"", 0};
      for (auto [type, f] : fmt) {
        if (type == kLnctPath) {
          if (!form(f, &e.first, nullptr)) return false;
        } else if (type == kLnctDirectoryIndex) {
          if (!form(f, nullptr, &e.second)) return false;
        } else if (!form(f, nullptr, nullptr)) {
          return false;
        }
      }
      out.push_back(e);
    }
    return c.ok();
  }
};

// One line program starting at `start`; sets `next` to the following one.
bool decode_unit(const DwarfSections& s, uint64_t start, uint64_t& next, LineInfo& out,
                 const RowSink& emit, std::string& err) {
  const std::string_view d = s.line;
  Cursor head(d, start, d.size());
  uint64_t len = head.u(4);
  unsigned offset_size = 4;
  if (len == 0xffffffffu) {
    len = head.u(8);
    offset_size = 8;
  } else if (len >= 0xfffffff0u) {
    err = "reserved unit length";
    return false;
  }
  if (!head.ok() || len > head.left()) {
    err = "truncated line program header";
    return false;
  }
  const uint64_t unit_end = head.pos() + len;
  next = unit_end;
  Unit u{s, out, Cursor(d, head.pos(), unit_end), offset_size, {}};
  Cursor& c = u.c;
  auto bad = [&](const std::string& why) {
    err = (u.err.empty() ? why : u.err) + " (line program at offset " + std::to_string(start) + ")";
    return false;
  };
  uint64_t version = c.u(2);
  if (!c.ok()) return bad("truncated header");
  if (version < 2 || version > 5) return bad("unsupported line table version " + std::to_string(version));
  if (version >= 5) {
    uint64_t addr_size = c.u(1);
    c.u(1);  // segment selector size
    if (c.ok() && addr_size != 8 && addr_size != 4) return bad("address size " + std::to_string(addr_size));
  }
  uint64_t header_len = c.u(offset_size);
  if (!c.ok() || header_len > c.left()) return bad("truncated header");
  const uint64_t program = c.pos() + header_len;
  const uint64_t min_inst = c.u(1);
  if (version >= 4) c.u(1);  // maximum operations per instruction (VLIW only)
  c.u(1);  // default_is_stmt
  const int line_base = int8_t(uint8_t(c.u(1)));
  const uint64_t line_range = c.u(1);
  const uint64_t opcode_base = c.u(1);
  if (!c.ok()) return bad("truncated header");
  if (line_range == 0) return bad("line_range is 0");
  if (opcode_base == 0) return bad("opcode_base is 0");
  std::vector<uint8_t> std_len(opcode_base, 0);
  for (uint64_t i = 1; i < opcode_base; ++i) std_len[i] = uint8_t(c.u(1));
  if (!c.ok()) return bad("truncated header");

  // Directories and files; names become full paths, indexed as the
  // version numbers them (v5 from 0, earlier from 1 with 0 unused).
  const size_t file0 = out.files.size();
  size_t nfiles = 0;
  if (version >= 5) {
    std::vector<std::pair<std::string_view, uint64_t>> dirs, files;
    if (!u.v5_entries(dirs) || !u.v5_entries(files)) return bad("malformed directory or file table");
    for (auto& [name, di] : files) out.files.push_back({di < dirs.size() ? dirs[di].first : "", name});
    nfiles = files.size();
  } else {
    std::vector<std::string_view> dirs{""};  // 0: the compilation directory (not recorded here)
    for (std::string_view dname = c.cstr(); c.ok() && !dname.empty(); dname = c.cstr()) dirs.push_back(dname);
    out.files.push_back({"", ""});  // file 0 does not exist before v5
    for (std::string_view fname = c.cstr(); c.ok() && !fname.empty(); fname = c.cstr()) {
      uint64_t di = c.uleb();
      c.uleb();  // modification time
      c.uleb();  // length
      out.files.push_back({di < dirs.size() ? dirs[di] : "", fname});
    }
    if (!c.ok()) return bad("malformed directory or file table");
    nfiles = out.files.size() - file0;
  }
  c.seek(program);
  if (!c.ok()) return bad("header longer than the unit");

  // The state machine (DWARF 5 §6.2.2).
  // is_stmt and the other flags do not matter to ptodis: every row counts.
  uint64_t address = 0, file = 1, column = 0;
  unsigned section = 0;
  int64_t line = 1;
  auto row = [&](bool end) {
    LineRow r;
    r.address = address;
    r.section = section;
    r.file = file < nfiles ? int64_t(file0 + file) : -1;
    r.line = line > 0 && line <= int64_t(UINT32_MAX) ? uint32_t(line) : 0;
    r.column = column <= UINT32_MAX ? uint32_t(column) : 0;
    r.end_sequence = end;
    emit(r);
  };
  auto reset = [&] {
    address = 0;
    section = 0;
    file = 1;
    line = 1;
    column = 0;
  };
  while (c.ok() && c.pos() < unit_end) {
    const uint64_t op = c.u(1);
    if (op >= opcode_base) {  // special opcode
      const uint64_t adj = op - opcode_base;
      address += (adj / line_range) * min_inst;
      line += line_base + int64_t(adj % line_range);
      row(false);
      continue;
    }
    switch (op) {
      case 0: {  // extended
        const uint64_t n = c.uleb();
        if (!c.ok() || n == 0 || n > c.left()) return bad("truncated extended opcode");
        const uint64_t after = c.pos() + n;
        const uint64_t sub = c.u(1);
        if (sub == 1) {  // DW_LNE_end_sequence
          row(true);
          reset();
        } else if (sub == 2) {  // DW_LNE_set_address
          const uint64_t at = c.pos();
          if (n - 1 != 8 && n - 1 != 4) return bad("address of " + std::to_string(n - 1) + " bytes");
          address = c.u(unsigned(n - 1));
          auto it = s.address_section.find(at);
          section = it == s.address_section.end() ? 0 : it->second;
        }
        // DW_LNE_define_file (v2-4), DW_LNE_set_discriminator and vendor
        // opcodes: skipped by their length.
        c.seek(after);
        break;
      }
      case 1: row(false); break;  // DW_LNS_copy
      case 2: address += c.uleb() * min_inst; break;  // DW_LNS_advance_pc
      case 3: line += c.sleb(); break;                // DW_LNS_advance_line
      case 4: file = c.uleb(); break;                 // DW_LNS_set_file
      case 5: column = c.uleb(); break;               // DW_LNS_set_column
      case 7: break;                                  // DW_LNS_set_basic_block
      case 8: address += ((255 - opcode_base) / line_range) * min_inst; break;  // const_add_pc
      case 9: address += c.u(2); break;               // DW_LNS_fixed_advance_pc
      default:  // prologue_end, epilogue_begin, set_isa, unknown: skip operands
        for (unsigned i = 0; i < std_len[op]; ++i) c.uleb();
        break;
    }
  }
  if (!c.ok()) return bad("truncated line program");
  return true;
}

}  // namespace

std::string FileName::path(size_t max) const {
  if (name.empty() || name[0] == '/' || dir.empty()) return name.size() > max ? "" : std::string(name);
  size_t n = dir.size() + (dir.back() == '/' ? 0 : 1) + name.size();
  if (n > max) return "";
  std::string p(dir);
  if (dir.back() != '/') p += '/';
  p += name;
  return p;
}

bool decode_line_programs(const DwarfSections& s, LineInfo& out, const RowSink& row, std::string& err) {
  uint64_t pos = 0;
  while (pos < s.line.size()) {
    uint64_t next = 0;
    if (!decode_unit(s, pos, next, out, row, err)) return false;
    pos = next;
  }
  return true;
}

}  // namespace ptoas::dis
