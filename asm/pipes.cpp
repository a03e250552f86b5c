// Pipes of ops and the operands of sync ops (pipes.h).
#include "pipes.h"

#include <cctype>
#include <string>

namespace ptoas {

namespace {

// ORDER PIPE
constexpr std::string_view kPipeNames[] = {"PIPE_S",    "PIPE_V",    "PIPE_M",   "PIPE_MTE1", "PIPE_MTE2",
                                           "PIPE_MTE3", "PIPE_FIX",  "PIPE_ALL", "PIPE_NONE"};
static_assert(sizeof(kPipeNames) / sizeof(kPipeNames[0]) == size_t(Pipe::None) + 1);

Loc loc_of(const Module& m, ValueId v) {
  const Type& t = m.type_of(v);
  return t.kind == TypeKind::TileBuf ? t.loc : Loc::Gm;
}

// tmov / textract / tinsert by where the data comes from and goes
// (SYNC_NOTES §1): out of L1 on MTE1, out of L0C on FIX, into L1 from UB on
// MTE3 (A5), UB to UB on V.
Pipe move_pipe(Loc src, Loc dst) {
  if (src == Loc::Acc) return Pipe::FIX;
  if (src == Loc::Mat) return Pipe::MTE1;
  if (src == Loc::Vec && dst == Loc::Mat) return Pipe::MTE3;
  return Pipe::V;
}

// record_event / wait_event name the ops on each side (#pto.pipe_event_type).
Pipe event_type_pipe(std::string_view w) {
  if (w == "TLOAD" || w == "TPREFETCH") return Pipe::MTE2;
  if (w == "TSTORE_VEC" || w == "TSTORE") return Pipe::MTE3;
  if (w == "TSTORE_ACC" || w == "TSTORE_FIX") return Pipe::FIX;
  if (w == "TMOV_M2L" || w == "TMOV_M2B" || w == "TMOV_M2S" || w == "TEXTRACT") return Pipe::MTE1;
  if (w == "TMATMUL" || w == "TGEMV" || w == "TCUBE") return Pipe::M;
  if (w == "TVEC" || w == "TVECWAIT_EVENT") return Pipe::V;
  return Pipe::None;
}

bool c_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string_view pipe_name(Pipe p) { return kPipeNames[size_t(p)]; }

Pipe pipe_from_name(std::string_view w) {
  if (w.substr(0, 5) == "PIPE_") w.remove_prefix(5);
  for (unsigned p = 0; p < unsigned(Pipe::None); ++p)
    if (kPipeNames[p].substr(5) == w) return Pipe(p);
  return Pipe::None;
}

Pipe op_pipe(const Module& m, const Inst& in, Arch arch) {
  const unsigned n = unsigned(in.n_ins + in.n_outs);
  switch (op_info(in.op).pipe) {
    case PipeRule::Nop:
    case PipeRule::Sync: return Pipe::None;
    case PipeRule::S: return Pipe::S;
    case PipeRule::V: return Pipe::V;
    case PipeRule::M: return Pipe::M;
    case PipeRule::Mte1: return Pipe::MTE1;
    case PipeRule::Mte2: return Pipe::MTE2;
    case PipeRule::Mte3: return Pipe::MTE3;
    case PipeRule::Fix: return Pipe::FIX;
    case PipeRule::Store:
      return in.n_ins >= 1 && loc_of(m, m.operand(in, 0)) == Loc::Acc ? Pipe::FIX : Pipe::MTE3;
    case PipeRule::Move:
    case PipeRule::Window:
      if (in.n_ins < 1 || in.n_outs < 1) return Pipe::V;
      return move_pipe(loc_of(m, m.operand(in, 0)), loc_of(m, m.operand(in, in.n_ins)));
    case PipeRule::Tci: {
      // The form with a tmp tile runs on the vector unit (PTOAS #1499/#1532).
      unsigned tiles = 0;
      for (unsigned i = 0; i < n; ++i) tiles += m.type_of(m.operand(in, i)).kind == TypeKind::TileBuf;
      return tiles > 1 ? Pipe::V : Pipe::S;
    }
    case PipeRule::Scatter: return arch == Arch::A5 ? Pipe::V : Pipe::S;
    case PipeRule::Comm: return Pipe::MTE3;
  }
  return Pipe::None;
}

bool decode_sync(const Module& m, const Inst& in, SyncOp& out) {
  out = SyncOp{};
  switch (in.op) {
    case Op::SetFlag: case Op::SetFlagDyn: case Op::RecordEvent: out.kind = SyncOp::Kind::Set; break;
    case Op::WaitFlag: case Op::WaitFlagDyn: case Op::WaitEvent: out.kind = SyncOp::Kind::Wait; break;
    case Op::Barrier: case Op::PipeBarrier: out.kind = SyncOp::Kind::Barrier; break;
    default: return false;
  }
  const Attr* a = m.find_attr(in, "__body");
  std::string_view body = a && a->word != kNone ? m.str(a->word) : a ? m.str(a->text) : std::string_view{};
  // The words of the body, in order: pipes (PIPE_X, or the op-type names of
  // record_event) and EVENT_IDk. Spellings vary (<PIPE_V>, "PIPE_V",
  // #pto.pipe<PIPE_V>); the words do not.
  Pipe pipes[2] = {Pipe::None, Pipe::None};
  unsigned np = 0;
  bool have_id = false;
  const bool events = in.op == Op::RecordEvent || in.op == Op::WaitEvent;
  for (size_t i = 0; i < body.size();) {
    if (!c_ident_char(body[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < body.size() && c_ident_char(body[j])) ++j;
    std::string_view w = body.substr(i, j - i);
    bool after_value = i > 0 && body[i - 1] == '%';
    i = j;
    if (after_value) continue;
    if (w.substr(0, 8) == "EVENT_ID" && w.size() > 8) {
      out.id = std::atoi(std::string(w.substr(8)).c_str());
      have_id = true;
      continue;
    }
    Pipe p = w.substr(0, 5) == "PIPE_" ? pipe_from_name(w) : events ? event_type_pipe(w) : Pipe::None;
    if (p != Pipe::None && np < 2) pipes[np++] = p;
  }
  if (out.kind == SyncOp::Kind::Barrier) {
    out.src = np ? pipes[0] : Pipe::None;
    return np == 1;
  }
  if (np != 2) return false;
  out.src = pipes[0];
  out.dst = pipes[1];
  if (in.op == Op::SetFlagDyn || in.op == Op::WaitFlagDyn) {
    if (in.n_ins + in.n_outs < 1) return false;
    out.id = -1;
    out.dyn = m.operand(in, unsigned(in.n_ins + in.n_outs) - 1);
    return true;
  }
  return have_id && out.id >= 0 && out.id < int(kEventIds);
}

}  // namespace ptoas
