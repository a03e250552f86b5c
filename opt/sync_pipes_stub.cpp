// TEMPORARY twin of asm/pipes.cpp (see sync_pipes_stub.h).
#include "sync_pipes_stub.h"

#include <string>

namespace ptoas {

std::string_view pipe_name(Pipe p) {
  static const char* const k[] = {"PIPE_S", "PIPE_V", "PIPE_M", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3",
                                  "PIPE_FIX", "PIPE_ALL"};
  return k[unsigned(p)];
}

namespace {

Loc tile_loc(const Module& m, ValueId v) {
  const Type& t = m.type_of(v);
  return t.kind == TypeKind::TileBuf ? t.loc : Loc::None;
}

Pipe move_pipe(Loc src, Loc dst, Arch arch) {
  if (src == Loc::Mat && (dst == Loc::Left || dst == Loc::Right || dst == Loc::Bias || dst == Loc::Scaling))
    return Pipe::MTE1;
  if (src == Loc::Acc) return Pipe::FIX;
  if (arch == Arch::A5 && src == Loc::Vec && dst == Loc::Mat) return Pipe::MTE3;
  return Pipe::V;
}

}  // namespace

Pipe op_pipe(const Module& m, const Inst& in, Arch arch) {
  const OpInfo& info = op_info(in.op);
  switch (in.op) {
    case Op::TLoad:
    case Op::TPrefetch:
    case Op::MGather:
      return Pipe::MTE2;
    case Op::TStore:
      return in.n_ins && tile_loc(m, m.operand(in, 0)) == Loc::Acc ? Pipe::FIX : Pipe::MTE3;
    case Op::TStoreFp:
    case Op::TExtractFp:
    case Op::TInsertFp:
      return Pipe::FIX;
    case Op::MScatter:
      return Pipe::MTE3;
    case Op::TMovFp:
      return Pipe::MTE1;
    case Op::TMov:
    case Op::TExtract:
    case Op::TInsert:
      if (in.n_ins && in.n_outs)
        return move_pipe(tile_loc(m, m.operand(in, 0)), tile_loc(m, m.operand(in, in.n_ins)), arch);
      return Pipe::V;
    case Op::TReshape:
    case Op::TGetScaleAddr:
      return Pipe::S;
    case Op::TCi:
      return in.n_ins > 1 ? Pipe::V : Pipe::S;
    case Op::TScatter:
      return arch == Arch::A5 ? Pipe::V : Pipe::S;
    default:
      break;
  }
  if (info.sem == Sem::Matmul) return Pipe::M;
  if (info.syn == Syn::Dps) return Pipe::V;
  return Pipe::S;
}

namespace {

bool pipe_word(std::string_view w, Pipe& p) {
  static const struct {
    const char* w;
    Pipe p;
  } k[] = {{"PIPE_S", Pipe::S},       {"PIPE_V", Pipe::V},       {"PIPE_M", Pipe::M},
           {"PIPE_MTE1", Pipe::MTE1}, {"PIPE_MTE2", Pipe::MTE2}, {"PIPE_MTE3", Pipe::MTE3},
           {"PIPE_FIX", Pipe::FIX},   {"PIPE_ALL", Pipe::All},   {"TLOAD", Pipe::MTE2},
           {"TVEC", Pipe::V},         {"TMOV_M2L", Pipe::MTE1},  {"TMATMUL", Pipe::M},
           {"TSTORE_ACC", Pipe::FIX}, {"TSTORE_VEC", Pipe::MTE3}, {"TMOV_M2B", Pipe::MTE1},
           {"TMOV_V2V", Pipe::V},     {"TMOV_A2V", Pipe::FIX}};
  for (const auto& e : k)
    if (w == e.w) {
      p = e.p;
      return true;
    }
  return false;
}

}  // namespace

bool decode_sync(const Module& m, const Inst& in, SyncOp& out) {
  out = SyncOp{};
  switch (in.op) {
    case Op::SetFlag: case Op::SetFlagDyn: case Op::RecordEvent: out.kind = SyncOp::Kind::SetFlag; break;
    case Op::WaitFlag: case Op::WaitFlagDyn: case Op::WaitEvent: out.kind = SyncOp::Kind::WaitFlag; break;
    case Op::Barrier: case Op::PipeBarrier: out.kind = SyncOp::Kind::Barrier; break;
    default: return false;
  }
  const Attr* body = m.find_attr(in, "__body");
  std::string_view b = body && body->word != kNone ? m.str(body->word) : std::string_view();
  // The words of the body, in order: pipes (or op types) and event ids.
  Pipe pipes[2] = {Pipe::All, Pipe::All};
  unsigned n = 0;
  bool have_id = false;
  for (size_t i = 0; i < b.size();) {
    if (!(std::isalnum((unsigned char)b[i]) || b[i] == '_')) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < b.size() && (std::isalnum((unsigned char)b[j]) || b[j] == '_')) ++j;
    std::string_view w = b.substr(i, j - i);
    bool value_name = i > 0 && b[i - 1] == '%';
    Pipe p;
    if (!value_name && pipe_word(w, p) && n < 2) pipes[n++] = p;
    else if (!value_name && w.size() == 9 && w.substr(0, 8) == "EVENT_ID") {
      out.id = w[8] - '0';
      have_id = true;
    }
    i = j;
  }
  if (out.kind == SyncOp::Kind::Barrier) {
    if (n < 1) return false;
    out.src = out.dst = pipes[0];
    return true;
  }
  if (n < 2) return false;
  out.src = pipes[0];
  out.dst = pipes[1];
  if (!have_id) {
    out.id = -1;
    if (in.n_ins) out.value = m.operand(in, 0);
  }
  return true;
}

}  // namespace ptoas
