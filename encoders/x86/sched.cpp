// x86-64 list scheduler over finished machine code (x86/sched.h).
#include "sched.h"

#include "zydis_lib.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>

namespace ptoas::cg::x86 {

namespace {

// Result latencies in cycles, roughly AMD Zen 3 (the machine the project is
// measured on; Intel cores differ by a cycle here and there). Only their
// order matters to a critical-path priority.
int latency(std::string_view m) {
  auto starts = [&](std::string_view p) { return m.substr(0, p.size()) == p; };
  for (std::string_view p : {"vfmadd", "vfmsub", "vfnmadd", "vfnmsub"})
    if (starts(p)) return 4;
  if (starts("vdiv")) return 11;
  if (starts("vsqrt")) return 14;
  for (std::string_view p : {"vmul", "vpmul", "vadd", "vsub", "vround", "vrndscale", "vperm", "vextract", "vinsert",
                             "vpmovzx", "vpmovsx", "vpack", "vpbroadcast", "vbroadcast", "imul"})
    if (starts(p)) return 3;
  if (starts("vcvt")) return 4;
  if (starts("vgather") || starts("vpgather")) return 20;
  return 1;
}

constexpr int kLoadLatency = 5;  // an L1 hit, added to an instruction that reads memory
constexpr int kIssueWidth = 4;   // instructions started per cycle
constexpr size_t kMaxSpan = 256; // longer runs are cut (the scheduler is quadratic)

struct Ins {
  uint32_t off, len;
  bool barrier;          // stays in place and ends a span
  bool load, store;      // reads / writes memory (other than the constant pool)
  int lat;
  // Register ids (largest enclosing register; 0 = flags).
  uint16_t rd[2 * ZYDIS_MAX_OPERAND_COUNT + 1], wr[ZYDIS_MAX_OPERAND_COUNT + 1];
  uint8_t nrd, nwr;
  void read(int id) { rd[nrd++] = uint16_t(id); }
  void write(int id) { wr[nwr++] = uint16_t(id); }
};
constexpr int kRegIds = ZYDIS_REGISTER_MAX_VALUE + 2;

int reg_id(const ZydisLib& z, ZydisRegister r) {
  ZydisRegister big = z.largest_enclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
  return 1 + int(big == ZYDIS_REGISTER_NONE ? r : big);
}

// Decoded instructions by their bytes. Unrolled and repeated loops repeat
// encodings (the bench kernels' code has 4-5 instructions per distinct
// one) and decoding was most of the scheduler's time. Decoding depends
// only on the bytes read, so bytes that begin with a decoded
// instruction's bytes decode to it. Keyed by the first 5 bytes (an
// instruction shorter than that is found only before the same bytes).
class DecodeMemo {
 public:
  DecodeMemo() { slots_.fill(kEnd); }
  const Ins* find(const uint8_t* p, size_t avail) const {
    for (uint32_t i = slots_[slot(p, avail)]; i != kEnd; i = entries_[i].next) {
      const Entry& e = entries_[i];
      if (e.ins.len <= avail && std::memcmp(e.bytes, p, e.ins.len) == 0) return &e.ins;
    }
    return nullptr;
  }
  void add(const uint8_t* p, size_t avail, const Ins& in) {
    uint32_t& head = slots_[slot(p, avail)];
    Entry e{in, {}, head};
    std::memcpy(e.bytes, p, in.len);
    head = uint32_t(entries_.size());
    entries_.push_back(e);
  }

 private:
  static constexpr uint32_t kSlots = 2048, kEnd = ~0u;
  struct Entry {
    Ins ins;
    uint8_t bytes[ZYDIS_MAX_INSTRUCTION_LENGTH];
    uint32_t next;
  };
  static uint32_t slot(const uint8_t* p, size_t avail) {
    uint64_t k = 0;
    std::memcpy(&k, p, std::min<size_t>(avail, 5));
    return uint32_t((k * 0x9E3779B97F4A7C15ull) >> 53);  // 11 bits
  }
  std::array<uint32_t, kSlots> slots_;
  std::vector<Entry> entries_;
};

// Decodes code[begin, end); false if any of it does not decode. lat_of:
// latency per mnemonic, 0 until known.
bool decode_range(const ZydisLib& z, const std::vector<uint8_t>& code, size_t begin, size_t end, std::vector<Ins>& out,
                  std::vector<int8_t>& lat_of, DecodeMemo& memo) {
  ZydisDecoder dec;
  z.decoder_init(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  for (size_t off = begin; off < end;) {
    if (const Ins* seen = memo.find(code.data() + off, end - off)) {
      out.push_back(*seen);
      out.back().off = uint32_t(off);
      off += seen->len;
      continue;
    }
    ZydisDecodedInstruction d;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!ZYAN_SUCCESS(z.decode_full(&dec, code.data() + off, end - off, &d, ops))) return false;
    Ins in{};
    in.off = uint32_t(off);
    in.len = d.length;
    // Per mnemonic, computed at its first use (the string tests are slow).
    int8_t& lat = lat_of[d.mnemonic];
    if (lat == 0) lat = int8_t(latency(z.mnemonic_string(d.mnemonic)));
    in.lat = lat;
    bool vzero = d.mnemonic == ZYDIS_MNEMONIC_VZEROUPPER || d.mnemonic == ZYDIS_MNEMONIC_VZEROALL;
    ZydisInstructionCategory c = d.meta.category;
    in.barrier = c == ZYDIS_CATEGORY_COND_BR || c == ZYDIS_CATEGORY_UNCOND_BR || c == ZYDIS_CATEGORY_CALL ||
                 c == ZYDIS_CATEGORY_RET || c == ZYDIS_CATEGORY_PUSH || c == ZYDIS_CATEGORY_POP ||
                 c == ZYDIS_CATEGORY_SYSTEM || (d.attributes & (ZYDIS_ATTRIB_IS_RELATIVE | ZYDIS_ATTRIB_HAS_REP)) ||
                 vzero;
    for (unsigned i = 0; i < d.operand_count; ++i) {
      const ZydisDecodedOperand& o = ops[i];
      if (o.type == ZYDIS_OPERAND_TYPE_REGISTER) {
        int id = reg_id(z, o.reg.value);
        bool w = o.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;
        // A write of 8 or 16 bits keeps the rest of the register.
        if ((o.actions & ZYDIS_OPERAND_ACTION_MASK_READ) || (w && o.size < 32 && o.reg.value < ZYDIS_REGISTER_XMM0))
          in.read(id);
        if (w) in.write(id);
      } else if (o.type == ZYDIS_OPERAND_TYPE_MEMORY) {
        for (ZydisRegister r : {o.mem.base, o.mem.index})
          if (r != ZYDIS_REGISTER_NONE) in.read(reg_id(z, r));
        if (o.mem.type == ZYDIS_MEMOP_TYPE_AGEN) continue;
        if (o.mem.base == ZYDIS_REGISTER_RIP) in.barrier = true;
        // r14 addresses the read-only constants: never written.
        bool pool = o.mem.base == ZYDIS_REGISTER_R14 && !(o.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE);
        if (o.actions & ZYDIS_OPERAND_ACTION_MASK_READ) {
          in.lat += kLoadLatency;
          if (!pool) in.load = true;
        }
        if (o.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) in.store = true;
      } else if (o.type == ZYDIS_OPERAND_TYPE_POINTER) {
        in.barrier = true;
      }
    }
    if (d.cpu_flags) {
      const ZydisAccessedFlags& f = *d.cpu_flags;
      if (f.tested) in.read(0);
      if (f.modified | f.set_0 | f.set_1 | f.undefined) in.write(0);
    }
    memo.add(code.data() + off, end - off, in);
    out.push_back(std::move(in));
    off += d.length;
  }
  return true;
}

// Scratch reused across spans (no allocation per span once grown).
struct Work {
  struct Edge {
    uint32_t from, to;
    int lat;
  };
  std::vector<Edge> edges;
  std::vector<uint32_t> first, npred, by_from;  // CSR of the edges by source
  std::vector<long> writer = std::vector<long>(kRegIds, -1);
  std::vector<std::vector<uint32_t>> readers = std::vector<std::vector<uint32_t>>(kRegIds);
  std::vector<int> prio;
  std::vector<long> ready;
  std::vector<uint32_t> cand;
  std::vector<uint32_t> loads_since, touched;
};

// The order of span [b, e) of ins: a list schedule by critical path.
void schedule_span(const std::vector<Ins>& ins, size_t b, size_t e, Work& w, std::vector<size_t>& order) {
  size_t n = e - b;
  w.edges.clear();
  w.touched.clear();
  w.loads_since.clear();
  auto edge = [&](size_t from, size_t to, int lat) { w.edges.push_back({uint32_t(from), uint32_t(to), lat}); };
  auto touch = [&](int r) {
    if (w.writer[size_t(r)] == -1 && w.readers[size_t(r)].empty()) w.touched.push_back(uint32_t(r));
  };
  long last_store = -1;
  for (size_t i = 0; i < n; ++i) {
    const Ins& x = ins[b + i];
    for (unsigned k = 0; k < x.nrd; ++k) {
      long wtr = w.writer[x.rd[k]];
      if (wtr >= 0) edge(size_t(wtr), i, ins[b + size_t(wtr)].lat);
    }
    for (unsigned k = 0; k < x.nwr; ++k) {
      long wtr = w.writer[x.wr[k]];
      if (wtr >= 0) edge(size_t(wtr), i, 0);
      for (uint32_t rd : w.readers[x.wr[k]])
        if (rd != i) edge(rd, i, 0);
    }
    for (unsigned k = 0; k < x.nrd; ++k) {
      touch(x.rd[k]);
      w.readers[x.rd[k]].push_back(uint32_t(i));
    }
    for (unsigned k = 0; k < x.nwr; ++k) {
      touch(x.wr[k]);
      w.writer[x.wr[k]] = long(i);
      w.readers[x.wr[k]].clear();
    }
    if (x.load && last_store >= 0) edge(size_t(last_store), i, 1);
    if (x.store) {
      if (last_store >= 0) edge(size_t(last_store), i, 0);
      for (uint32_t l : w.loads_since)
        if (l != i) edge(l, i, 0);
      w.loads_since.clear();
      last_store = long(i);
    }
    if (x.load) w.loads_since.push_back(uint32_t(i));
  }
  for (uint32_t r : w.touched) {
    w.writer[r] = -1;
    w.readers[r].clear();
  }
  // Edges by source (CSR), predecessor counts.
  w.first.assign(n + 1, 0);
  w.npred.assign(n, 0);
  for (const Work::Edge& x : w.edges) {
    ++w.first[x.from + 1];
    ++w.npred[x.to];
  }
  for (size_t i = 0; i < n; ++i) w.first[i + 1] += w.first[i];
  w.by_from.resize(w.edges.size());
  {
    std::vector<uint32_t> at(w.first.begin(), w.first.end() - 1);
    for (uint32_t k = 0; k < w.edges.size(); ++k) w.by_from[at[w.edges[k].from]++] = k;
  }
  // Priority: the longest latency path from the instruction to the end.
  w.prio.assign(n, 0);
  for (size_t i = n; i-- > 0;) {
    int p = ins[b + i].lat;
    for (uint32_t k = w.first[i]; k < w.first[i + 1]; ++k) {
      const Work::Edge& x = w.edges[w.by_from[k]];
      p = std::max(p, x.lat + w.prio[x.to]);
    }
    w.prio[i] = p;
  }
  order.clear();
  w.ready.assign(n, 0);
  w.cand.clear();  // instructions whose predecessors are all scheduled
  for (size_t i = 0; i < n; ++i)
    if (w.npred[i] == 0) w.cand.push_back(uint32_t(i));
  long cycle = 0;
  int issued = 0;
  while (!w.cand.empty()) {
    // The highest priority among those ready by now (ties: program order).
    long best = -1, soonest = -1;
    for (size_t c = 0; c < w.cand.size(); ++c) {
      uint32_t i = w.cand[c];
      if (soonest < 0 || w.ready[i] < w.ready[w.cand[size_t(soonest)]]) soonest = long(c);
      if (w.ready[i] > cycle) continue;
      if (best < 0) {
        best = long(c);
        continue;
      }
      uint32_t j = w.cand[size_t(best)];
      if (w.prio[i] > w.prio[j] || (w.prio[i] == w.prio[j] && i < j)) best = long(c);
    }
    if (best < 0) {
      cycle = w.ready[w.cand[size_t(soonest)]];
      issued = 0;
      continue;
    }
    uint32_t i = w.cand[size_t(best)];
    w.cand[size_t(best)] = w.cand.back();
    w.cand.pop_back();
    order.push_back(b + i);
    for (uint32_t k = w.first[i]; k < w.first[i + 1]; ++k) {
      const Work::Edge& x = w.edges[w.by_from[k]];
      w.ready[x.to] = std::max(w.ready[x.to], cycle + x.lat);
      if (--w.npred[x.to] == 0) w.cand.push_back(x.to);
    }
    if (++issued == kIssueWidth) {
      ++cycle;
      issued = 0;
    }
  }
}

// The source location in effect at offset `off` (lines sorted by offset).
uint32_t loc_at(const std::vector<LineEntry>& lines, uint32_t off) {
  auto it = std::upper_bound(lines.begin(), lines.end(), off,
                             [](uint32_t o, const LineEntry& e) { return o < e.offset; });
  return it == lines.begin() ? 0 : std::prev(it)->src_loc;
}

}  // namespace

void schedule_x86(const ZydisLib& z, std::vector<uint8_t>& code, std::vector<uint32_t> cuts,
                        std::vector<std::pair<uint32_t, uint32_t>> ranges, std::vector<LineEntry>& lines) {
  // The ranges, merged where they overlap or nest; a span never leaves one.
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<uint32_t, uint32_t>> merged_ranges;
  for (auto r : ranges) {
    if (r.second > code.size() || r.first >= r.second) continue;
    if (!merged_ranges.empty() && r.first < merged_ranges.back().second)
      merged_ranges.back().second = std::max(merged_ranges.back().second, r.second);
    else merged_ranges.push_back(r);
  }
  std::vector<int8_t> lat_of(ZYDIS_MNEMONIC_MAX_VALUE + 1, 0);
  std::sort(cuts.begin(), cuts.end());
  auto is_cut = [&](uint32_t off) { return std::binary_search(cuts.begin(), cuts.end(), off); };
  std::vector<uint8_t> out = code;
  std::vector<LineEntry> added;
  std::vector<std::pair<uint32_t, uint32_t>> spans;  // rescheduled byte ranges
  Work work;
  std::vector<size_t> order;
  // One range at a time (no span crosses from one into the next), its
  // instructions in one buffer reused and reserved for the most the range
  // can hold: a process pays for every fresh heap page (a page fault), and
  // growing the buffer by doubling while holding every range's
  // instructions was most of a small compile's heap.
  std::vector<Ins> ins;
  DecodeMemo memo;
  for (auto [rb, re] : merged_ranges) {
    ins.clear();
    ins.reserve((re - rb) / 2 + 1);
    if (!decode_range(z, code, rb, re, ins, lat_of, memo)) continue;
    size_t i = 0;
    while (i < ins.size()) {
      if (ins[i].barrier) {
        ++i;
        continue;
      }
      size_t e = i + 1;
      while (e < ins.size() && !ins[e].barrier && !is_cut(ins[e].off) && e - i < kMaxSpan) ++e;
      if (e - i >= 2) {
        size_t first_added = added.size();
        schedule_span(ins, i, e, work, order);
        uint32_t at = ins[i].off, begin = at, end = ins[e - 1].off + ins[e - 1].len;
        bool changed = false;
        uint32_t prev_loc = ~0u;
        for (size_t k : order) {
          std::memcpy(out.data() + at, code.data() + ins[k].off, ins[k].len);
          changed |= ins[k].off != at;
          uint32_t loc = loc_at(lines, ins[k].off);
          if (loc != prev_loc) added.push_back({at, loc});
          prev_loc = loc;
          at += ins[k].len;
        }
        if (changed) {
          // The code after the span keeps the location it had.
          added.push_back({end, loc_at(lines, end)});
          spans.push_back({begin, end});
        } else {
          added.resize(first_added);
        }
      }
      i = e;
    }
  }
  if (spans.empty()) return;
  code.swap(out);
  // Line rows: those outside the rescheduled spans (sorted, disjoint), plus
  // the new ones.
  auto inside = [&](uint32_t off) {
    auto it = std::upper_bound(spans.begin(), spans.end(), off,
                               [](uint32_t o, const std::pair<uint32_t, uint32_t>& sp) { return o < sp.first; });
    return it != spans.begin() && off <= std::prev(it)->second;
  };
  std::vector<LineEntry> merged;
  for (const LineEntry& l : lines)
    if (!inside(l.offset)) merged.push_back(l);
  merged.insert(merged.end(), added.begin(), added.end());  // all inside the spans
  std::stable_sort(merged.begin(), merged.end(), [](const LineEntry& a, const LineEntry& b) { return a.offset < b.offset; });
  std::vector<LineEntry> rows;
  for (const LineEntry& l : merged) {
    if (!rows.empty() && rows.back().offset == l.offset) rows.back() = l;
    else rows.push_back(l);
  }
  lines.swap(rows);
}

}  // namespace ptoas::cg::x86
