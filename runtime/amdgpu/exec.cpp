// The executor's core: loading, the launch, workgroups and waves, the
// scheduling of waves around s_barrier, the memory-counter bookkeeping
// behind the s_waitcnt check, operand access and fault reports.
#include <algorithm>

#include "exec.h"

#include <chrono>
#include <cstring>

#include "chip.h"
#include "hex_text.h"

namespace ptoas::amdgpu_emu {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Registers no instruction wrote yet read as this pattern (plus the
// register number), not zero: code that relies on a zeroed register shows.
constexpr uint32_t kPoison = 0xbadbad00;
// LDS bytes before any write.
constexpr uint8_t kLdsPoison = 0xa5;

}  // namespace

std::string reg_name(bool vgpr, unsigned r) {
  if (vgpr) return "v" + std::to_string(r);
  switch (r) {
    case kVcc: return "vcc_lo";
    case kVcc + 1: return "vcc_hi";
    case kExec: return "exec_lo";
    case kExec + 1: return "exec_hi";
    case kM0: return "m0";
    case kNull: return "null";
    default: return "s" + std::to_string(r);
  }
}

// ---------------------------------------------------------------- Program

Program::Program() = default;
Program::~Program() = default;

std::unique_ptr<Program> Program::load(std::span<const uint8_t> hsaco, std::string& err) {
  CodeObject co;
  if (!read_code_object(hsaco, co, err)) return nullptr;
  if (co.kernels.empty()) {
    err = "the code object has no kernel (no `<name>.kd` descriptor)";
    return nullptr;
  }
  std::unique_ptr<Program> p(new Program());
  p->m_ = std::make_unique<Module>();
  p->m_->chip = co.chip;
  p->m_->gen = co.chip->gen;
  for (const auto& kc : co.kernels) {
    Kernel k;
    if (!decode_kernel(kc, *co.chip, k, err)) return nullptr;
    if (k.kd.wave32() != (co.chip->wave == 32)) {
      err = "kernel " + k.name + ": the descriptor says wave" + (k.kd.wave32() ? "32" : "64") + " but " +
            std::string(co.chip->name) + " runs wave" + std::to_string(co.chip->wave) + " here";
      return nullptr;
    }
    p->m_->kernels.push_back(std::move(k));
  }
  return p;
}

std::string Program::chip() const { return std::string(m_->chip->name); }

std::vector<std::string> Program::kernels() const {
  std::vector<std::string> v;
  for (const auto& k : m_->kernels) v.push_back(k.name);
  return v;
}

bool Program::launch(const LaunchSpec& spec, Stats& stats, std::string& err) {
  stats = Stats{};
  const Kernel* k = nullptr;
  for (const auto& kk : m_->kernels)
    if (kk.name == spec.kernel) k = &kk;
  if (!k) {
    err = "no kernel `" + spec.kernel + "` in the code object";
    return false;
  }
  if (spec.block_x == 0 || spec.block_x > 1024 || spec.grid_x == 0) {
    err = "bad launch of " + spec.kernel + ": grid_x " + std::to_string(spec.grid_x) + ", block_x " +
          std::to_string(spec.block_x) + " (block_x must be 1..1024, grid_x at least 1)";
    return false;
  }
  Exec x(*m_, *k, spec, stats);
  return x.run(err);
}

// ---------------------------------------------------------------- Exec

Exec::Exec(const Module& m, const Kernel& kk, const LaunchSpec& spec, Stats& stats)
    : k(kk), W(kk.wave), gen(m.gen), m_(m), spec_(spec), stats_(stats), kernarg_(spec.kernarg) {}

bool Exec::fault(const Wave& w, int lane, const std::string& detail) {
  // Running off the end reports the last instruction.
  std::string where;
  if (!k.insts.empty()) {
    uint32_t i = std::min<uint32_t>(w.pc, uint32_t(k.insts.size() - 1));
    where = "`" + k.texts[i] + "` at offset " + hex(k.offsets[i]) + ", ";
  }
  where += "kernel " + k.name + ", workgroup " + std::to_string(group) + ", wave " + std::to_string(w.id);
  if (lane >= 0) where += ", lane " + std::to_string(lane);
  err_ = detail + " (" + where + ")";
  return false;
}

uint8_t* Exec::global(uint64_t addr, size_t n, bool kernarg_ok) const {
  for (const Buffer& b : spec_.buffers) {
    uint64_t a = reinterpret_cast<uintptr_t>(b.host);
    if (addr >= a && addr - a <= b.bytes && n <= b.bytes - (addr - a))
      return const_cast<uint8_t*>(static_cast<const uint8_t*>(b.host)) + (addr - a);
  }
  if (kernarg_ok) {
    uint64_t a = reinterpret_cast<uintptr_t>(kernarg_.data());
    if (addr >= a && addr - a <= kernarg_.size() && n <= kernarg_.size() - (addr - a))
      return const_cast<uint8_t*>(kernarg_.data()) + (addr - a);
  }
  return nullptr;
}

void Exec::issue(Wave& w, std::deque<MemOp>* queue, bool smem, const Opnd* dst) {
  MemOp op;
  op.serial = ++w.serial;
  if (dst && dst->kind != Opnd::None) {
    op.vgpr = dst->kind == Opnd::Vgpr;
    op.first = dst->reg;
    op.count = dst->count;
    Pending* p = op.vgpr ? w.vpend : w.spend;
    for (unsigned r = 0; r < op.count; ++r) p[op.first + r] = {op.serial, w.pc};
  }
  if (smem)
    w.smem.push_back(op);
  else
    queue->push_back(op);
}

void Exec::retire(Wave& w, const MemOp& op) {
  Pending* p = op.vgpr ? w.vpend : w.spend;
  for (unsigned r = 0; r < op.count; ++r)
    if (p[op.first + r].serial == op.serial) p[op.first + r] = {};
}

// s_waitcnt: the operations the counter values prove complete. Loads and
// stores retire in order (vmcnt, vscnt), LDS operations in order among
// themselves; scalar loads return out of order, so only lgkmcnt(0) proves
// one done, and LDS operations only as far as the count excludes them.
void Exec::wait(Wave& w, const Inst& in) {
  auto drain = [&](std::deque<MemOp>& q, size_t keep) {
    while (q.size() > keep) {
      retire(w, q.front());
      q.pop_front();
    }
  };
  if (in.wait_vm != 0xffff) drain(w.vm, in.wait_vm);
  if (in.wait_vs != 0xffff) drain(w.vs, in.wait_vs);
  if (in.wait_lgkm != 0xffff) {
    size_t n = in.wait_lgkm;
    if (n == 0) {
      for (const auto& op : w.smem) retire(w, op);
      w.smem.clear();
      drain(w.lds, 0);
    } else {
      size_t total = w.lds.size() + w.smem.size();
      size_t must = total > n ? total - n : 0;  // at least this many are done
      size_t lds_done = must > w.smem.size() ? must - w.smem.size() : 0;
      drain(w.lds, w.lds.size() - std::min(lds_done, w.lds.size()));
    }
  }
}

bool Exec::check_uses(Wave& w, const Inst& in) {
  for (const RegUse& u : in.uses) {
    const Pending* p = u.vgpr ? w.vpend : w.spend;
    for (unsigned r = 0; r < u.count; ++r) {
      const Pending& pr = p[u.first + r];
      if (!pr.serial) continue;
      return fault(w, -1, reg_name(u.vgpr, u.first + r) + (u.write ? " overwritten" : " read") +
                              " before s_waitcnt (load at offset " + hex(k.offsets[pr.inst]) + ": `" +
                              k.texts[pr.inst] + "`)");
    }
  }
  return true;
}

bool Exec::step(Wave& w) {
  if (w.pc >= k.insts.size()) return fault(w, -1, "ran past the end of the kernel without s_endpgm");
  const Inst& in = k.insts[w.pc];
  if (!check_uses(w, in)) return false;
  if (++stats_.instructions > spec_.step_limit)
    return fault(w, -1, "step limit reached (" + std::to_string(spec_.step_limit) + " wave instructions): a runaway kernel?");
  if (deadline_ > 0 && (stats_.instructions & 0xffff) == 0 && now_s() > deadline_)
    return fault(w, -1, "time limit of " + std::to_string(spec_.timeout_s) + " s reached: a runaway kernel?");
  switch (in.op) {
    case Op::SWaitcnt: wait(w, in); break;
    case Op::SNop: break;
    case Op::SEndpgm: w.done = true; return true;
    case Op::SBarrier: w.at_barrier = true; ++w.pc; return true;
    case Op::SBranch: w.pc = in.target; return true;
    case Op::SGetpcB64: {  // the next instruction's address
      uint64_t next = w.pc + 1 < k.offsets.size() ? k.offsets[w.pc + 1] : k.offsets[w.pc] + 4;
      set_s(w, in.ops[0], kCodeBase + next);
      break;
    }
    case Op::SSetpcB64: {
      uint64_t to = s64(w, in.ops[0]) - kCodeBase;
      auto it = std::lower_bound(k.offsets.begin(), k.offsets.end(), to);
      if (it == k.offsets.end() || *it != to)
        return fault(w, -1, "s_setpc_b64 to " + std::to_string(to) + " bytes from the entry: not an instruction of the kernel");
      w.pc = uint32_t(it - k.offsets.begin());
      return true;
    }
    case Op::SCbranch: {
      bool take = false;
      uint64_t vcc = W == 64 ? (uint64_t(w.s[kVcc + 1]) << 32 | w.s[kVcc]) : w.s[kVcc];
      switch (in.cond) {
        case Cond::Scc0: take = !w.scc; break;
        case Cond::Scc1: take = w.scc; break;
        case Cond::Execz: take = exec_mask(w) == 0; break;
        case Cond::Execnz: take = exec_mask(w) != 0; break;
        case Cond::Vccz: take = vcc == 0; break;
        case Cond::Vccnz: take = vcc != 0; break;
      }
      w.pc = take ? in.target : w.pc + 1;
      return true;
    }
    default:
      if (in.op < Op::SLoad) {
        if (!exec_salu(*this, w, in)) return false;
      } else if (in.op >= Op::GlobalLoad || in.op == Op::SLoad) {
        if (!exec_mem(*this, w, in)) return false;
      } else if (in.op == Op::VMatrix) {
        if (!exec_matrix(*this, w, in)) return false;
      } else if (in.op >= Op::VAddF32) {
        if (!exec_valu_float(*this, w, in)) return false;
      } else {
        if (!exec_valu_int(*this, w, in)) return false;
      }
  }
  ++w.pc;
  return true;
}

bool Exec::run_group(unsigned g) {
  group = g;
  size_t lds_bytes = k.kd.group_segment_fixed_size;
  lds.assign(lds_bytes, kLdsPoison);
  lds_init.assign(lds_bytes, 0);
  lds_shadow.reset(lds_bytes);
  ++interval;

  unsigned nwaves = (spec_.block_x + W - 1) / W;
  waves_.assign(nwaves, Wave{});
  unsigned user = k.kd.user_sgpr_count();
  for (unsigned i = 0; i < nwaves; ++i) {
    Wave& w = waves_[i];
    w.id = i;
    w.lanes = std::min(W, spec_.block_x - i * W);
    w.v.resize(size_t(256) * W);
    for (unsigned r = 0; r < 256; ++r)
      for (unsigned l = 0; l < W; ++l) w.v[size_t(r) * W + l] = kPoison | r;
    for (unsigned r = 0; r < kNumSgprs; ++r) w.s[r] = kPoison | r;
    w.s[kVcc] = w.s[kVcc + 1] = 0;
    w.s[kM0] = kPoison;
    w.s[kNull] = 0;
    uint64_t exec = w.lanes == 64 ? ~0ull : (1ull << w.lanes) - 1;
    w.s[kExec] = uint32_t(exec);
    w.s[kExec + 1] = W == 64 ? uint32_t(exec >> 32) : 0;
    if (k.kd.kernarg_ptr()) {
      uint64_t ka = reinterpret_cast<uintptr_t>(kernarg_.data());
      w.s[0] = uint32_t(ka);
      w.s[1] = uint32_t(ka >> 32);
    }
    if (k.kd.tgid_x() && user < kNumSgprs) w.s[user] = g;
    for (unsigned l = 0; l < w.lanes; ++l) w.v[l] = (i * W + l) & 0x3ff;  // v0: x in bits 9:0
  }
  stats_.waves += nwaves;

  for (;;) {
    for (Wave& w : waves_) {
      while (!w.done && !w.at_barrier) {
        if (!step(w)) return false;
      }
    }
    bool any = false;
    for (Wave& w : waves_) any |= !w.done;
    if (!any) return true;
    // Every wave still running waits at a barrier (a wave that ended counts
    // as arrived): release them all.
    ++interval;
    for (Wave& w : waves_) w.at_barrier = false;
  }
}

bool Exec::run(std::string& err) {
  if (spec_.timeout_s > 0) deadline_ = now_s() + spec_.timeout_s;
  // The kernarg segment's address must stay put for the launch, and an
  // empty one still needs an address.
  if (kernarg_.empty()) kernarg_.reserve(1);
  // The workgroups' own global memory: one shadow for the launch (the
  // intervals tell the workgroups' histories apart).
  for (const Buffer& b : spec_.buffers)
    if (b.workgroup_local) wl_base = static_cast<const uint8_t*>(b.host), wl_bytes = b.bytes;
  wl_shadow.reset(wl_bytes);
  for (unsigned g = 0; g < spec_.grid_x; ++g)
    if (!run_group(g)) {
      err = err_;
      return false;
    }
  return true;
}

// ---------------------------------------------------------------- operands

uint32_t Exec::src32(const Wave& w, const Opnd& o, unsigned lane) const {
  uint32_t v = 0;
  switch (o.kind) {
    case Opnd::Vgpr: v = w.v[size_t(o.reg) * W + lane]; break;
    case Opnd::Sreg: v = w.s[o.reg]; break;
    case Opnd::Int: v = uint32_t(o.imm); break;
    case Opnd::Float: v = kInlineFloats[o.imm].f32; break;
    case Opnd::Lit: v = uint32_t(o.imm); break;
    case Opnd::None: break;
  }
  if (o.abs) v &= 0x7fffffffu;
  if (o.neg) v ^= 0x80000000u;
  return v;
}

uint64_t Exec::src64(const Wave& w, const Opnd& o, unsigned lane, bool is_f64) const {
  uint64_t v = 0;
  switch (o.kind) {
    case Opnd::Vgpr:
      v = w.v[size_t(o.reg) * W + lane] | uint64_t(w.v[size_t(o.reg + 1) * W + lane]) << 32;
      break;
    case Opnd::Sreg: v = w.s[o.reg] | (o.reg == kNull ? 0 : uint64_t(w.s[o.reg + 1]) << 32); break;
    case Opnd::Int: v = uint64_t(o.imm); break;
    case Opnd::Float: v = kInlineFloats[o.imm].f64; break;
    // A 32-bit literal of a double is its high half; of an integer, zero-extended.
    case Opnd::Lit: v = is_f64 ? uint64_t(uint32_t(o.imm)) << 32 : uint64_t(uint32_t(o.imm)); break;
    case Opnd::None: break;
  }
  if (o.abs) v &= ~(1ull << 63);
  if (o.neg) v ^= 1ull << 63;
  return v;
}

uint16_t Exec::src16(const Wave& w, const Opnd& o, unsigned lane) const {
  uint16_t v = 0;
  if (o.kind == Opnd::Float)
    v = kInlineFloats[o.imm].f16;
  else {
    Opnd plain = o;
    plain.abs = plain.neg = false;
    v = uint16_t(src32(w, plain, lane));
  }
  if (o.abs) v &= 0x7fff;
  if (o.neg) v ^= 0x8000;
  return v;
}

uint64_t Exec::mask(const Wave& w, const Opnd& o) const {
  if (o.kind != Opnd::Sreg) return o.kind == Opnd::Int ? uint64_t(o.imm) : 0;
  uint64_t m = w.s[o.reg];
  if (o.count == 2) m |= uint64_t(w.s[o.reg + 1]) << 32;
  return W == 32 ? (m & 0xffffffffu) : m;
}

void Exec::set_mask(Wave& w, const Opnd& o, uint64_t m) {
  if (o.kind != Opnd::Sreg || o.reg == kNull) return;
  w.s[o.reg] = uint32_t(m);
  if (o.count == 2) w.s[o.reg + 1] = uint32_t(m >> 32);
}

uint32_t Exec::s32(const Wave& w, const Opnd& o) const { return src32(w, o, 0); }

uint64_t Exec::s64(const Wave& w, const Opnd& o) const {
  if (o.kind == Opnd::Sreg && o.count == 1) return w.s[o.reg];
  return src64(w, o, 0, false);
}

void Exec::set_s(Wave& w, const Opnd& o, uint64_t v) {
  if (o.kind != Opnd::Sreg || o.reg == kNull) return;
  w.s[o.reg] = uint32_t(v);
  if (o.count >= 2) w.s[o.reg + 1] = uint32_t(v >> 32);
}

}  // namespace ptoas::amdgpu_emu
