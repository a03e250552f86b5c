// The verifier: semantic rules on a bound module (after asm/binder*.cpp).
//
//   verify_module.cpp  driver; entry/level/call-graph rules, structure
//                      (scf, func.call/return), view operand types
//   verify_tile.cpp    legality of every !pto.tile_buf definition
//   verify_dps.cpp     per-op operand checks driven by the op table (ops.def)
//   verify_arith.cpp   operand and result types of the arith ops
//   verify_npu*.cpp    NPU-specific rules mirroring the official tool's
//   verify_comm.cpp    verifiers and passes (verify_npu.h lists the files)
//   verify_backend.cpp nested modules: pto.backend, mixed backends, kernel kind
//
// Every rule reports through Diag at the offending op (inst.loc) or value
// definition; the verifier goes on after an error so one run reports several
// problems (Diag caps the count). It never trusts the IR to be well formed:
// every index into the module's arrays is checked first.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "diag.h"
#include "frontend.h"
#include "ir.h"

namespace ptoas {

// Runs every rule on `m`. Returns false if it reported errors.
bool verify_module(const Module& m, const FrontendOptions& opts, Diag& diag);

// The rules the official tool applies in its passes rather than in its op
// verifiers (frontend pipe lowering, reserved buffers, inttoptr uses):
// checked on a verified module when code is generated (asm/verify_npu_passes.cpp).
bool verify_npu_pipeline(const Module& m, const FrontendOptions& opts, Diag& diag);

// ---- internals shared by verify_*.cpp -------------------------------------------
namespace verify_detail {

struct Ctx {
  const Module& m;
  const FrontendOptions& opts;
  Diag& diag;
  Arch arch = Arch::A3;
  bool ok = true;

  Ctx(const Module& mod, const FrontendOptions& o, Diag& d);

  void error(uint32_t off, std::string msg);
  bool stop() const { return diag.too_many(); }

  // Guarded accessors: kNone / nullptr when out of range.
  const Inst* inst(InstId i) const { return i < m.insts.size() ? &m.insts[i] : nullptr; }
  ValueId operand(const Inst& in, unsigned i) const;
  unsigned n_operands(const Inst& in) const { return unsigned(in.n_ins) + in.n_outs; }
  const Type* vtype(ValueId v) const;
  TypeId vtype_id(ValueId v) const { return v < m.values.size() ? m.values[v].type : kNone; }
  const Inst* def_of(ValueId v) const;  // defining instruction or nullptr
  const Region* region(const Inst& in, unsigned i) const;
  std::vector<InstId> region_insts(const Region& r) const;
  std::vector<ValueId> region_args(const Region& r) const;
  ValueId result(const Inst& in, unsigned i) const;
  std::string type_text(ValueId v) const;
  std::string_view arch_name() const { return arch == Arch::A5 ? "a5" : "a3"; }

  // Attributes: the word of an Enum/String attribute, a symbol name without
  // '@', and for Opaque ops the text of `key = value` inside __body.
  std::string_view attr_text(const Inst& in, std::string_view key) const;
  std::string symbol(const Inst& in, std::string_view key) const;
  std::string_view body(const Inst& in) const;
  // `key = value` looked up first among the attributes, then in __body.
  // Returns the value's spelling without quotes; empty when absent.
  std::string kv(const Inst& in, std::string_view key) const;
};

// Operand classes used by the op table's signatures.
bool is_tile_like(const Type& t);
bool is_gm_like(const Type& t);
bool is_index_or_int(const Type& t);
bool is_i1(const Type& t);

// 'pto.tadd'
std::string q(Op op);

// Per-topic entry points.
void verify_tiles(Ctx& c);                      // verify_tile.cpp
void verify_dps_inst(Ctx& c, InstId id);        // verify_dps.cpp
void verify_arith_inst(Ctx& c, InstId id);      // verify_arith.cpp
void verify_npu_inst(Ctx& c, InstId id);        // verify_npu.cpp
void verify_npu_module(Ctx& c);                 // verify_npu.cpp (cross-function rules)
void verify_vpto_inst(Ctx& c, InstId id);       // verify_vpto.cpp (VPTO and VMI layers)
void verify_scalar_mem_inst(Ctx& c, InstId id); // verify_scalar_mem.cpp (load/store_scalar)
void verify_sections(Ctx& c);                   // verify_sections.cpp (uncovered tile segments)
void verify_backend_module(Ctx& c);             // verify_backend.cpp (nested modules' pto.backend)

// Every function definition of the module (func.func with a body), in order.
std::vector<InstId> module_functions(const Ctx& c);
// All instructions nested anywhere inside `fn` (pre-order).
void collect_nested(const Ctx& c, InstId fn, std::vector<InstId>& out);

// The layers below tile ops; verify_vpto_inst calls the first three.
void verify_vpto_dma_inst(Ctx& c, InstId id);   // verify_vpto_dma.cpp (mte_l0c_*, mad*, raw_fill_l1)
void verify_simt_inst(Ctx& c, InstId id);       // verify_simt.cpp (SIMT ops: keep/resume, atomics, shuffles)
void verify_extract_inst(Ctx& c, InstId id);    // verify_extract.cpp (textract's loc pairs, layouts, dtypes)
// The backend in effect (--pto-backend, else pto.backend) and, with the VPTO
// backend, the checks of that backend's passes (verify_vpto_backend.cpp).
void verify_vpto_backend(Ctx& c);
// The persistent SIMT fragments of function `fn` (llvm.alloca {pto.persistent}),
// as the VPTO backend materializes them (verify_simt_fragment.cpp).
void verify_simt_fragments(Ctx& c, InstId fn);
// `pto.section.simt<<<x, y, z>>>`: false when the text has no three integers.
bool simt_launch_dims(const Ctx& c, const Inst& in, int64_t dims[3]);
// `s` with ASCII letters in lower case (verify_npu_support.cpp).
std::string lower(std::string_view s);
// Whether `in` carries attribute `key`; false, rather than a read past the
// end, for an instruction whose attribute range the module does not hold.
inline bool has_attr(const Ctx& c, const Inst& in, std::string_view key) {
  if (size_t(in.attrs) + in.n_attrs > c.m.attrs.size()) return false;
  return c.m.find_attr(in, key) != nullptr;
}

}  // namespace verify_detail
}  // namespace ptoas
