// Internals shared by the NPU rule files: verify_npu.cpp (per-instruction
// rules and the driver of the others), verify_npu_pipes.cpp (frontend pipes
// and fixpipe), verify_npu_buffers.cpp (reserved buffers, multi-buffered
// tiles, tile addresses), verify_comm.cpp (pto.comm.*, async transfers,
// cmo), verify_npu_structs.cpp (structs, inttoptr), verify_npu_regions.cpp
// (section.simt, fusion_region) and verify_npu_passes.cpp (the rules of the
// official tool's passes, run when code is generated).
//
// The NPU ops are Opaque statements (ops.def): the binder keeps their
// operands in source order and the statement's text in __body. Which
// operand is which comes from the keyword that introduces it
// (`c2v_consumer_buf = %b`, `recv(%t)`, `aiv_subblockid(%s)`), read once by
// operand_roles(); attribute values come from Ctx::kv.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <map>
#include <unordered_map>
#include <vector>

#include "verify.h"

namespace ptoas {
namespace verify_detail {

// Where every instruction sits, and who uses each value.
struct NpuIndex {
  explicit NpuIndex(const Ctx& c);
  std::vector<InstId> order;                // every instruction, pre-order
  std::vector<InstId> parent;               // per inst: the op owning its region (kNone: module)
  std::vector<InstId> func;                 // per inst: the enclosing func.func (kNone)
  std::vector<RegionId> region;             // per inst: the region holding it (kNone)
  std::vector<uint32_t> pos;                // per inst: its index in that region
  std::vector<std::vector<InstId>> users;   // per value: instructions naming it
  std::vector<InstId> funcs;                // function definitions, in order
  std::unordered_map<std::string, InstId> func_by_name;
  std::vector<std::vector<InstId>> by_op;   // per Op: its instructions, in order
  std::vector<uint8_t> is_param;            // per value: a function parameter

  const std::vector<InstId>& of(Op op) const { return by_op[size_t(op)]; }

  InstId func_named(std::string_view name) const;
  // The nearest enclosing instruction with op `op`, or kNone.
  InstId enclosing(const Ctx& c, InstId id, Op op) const;
};

enum class KernelKind : uint8_t { None, Cube, Vector };

// `pto.kernel_kind = #pto.kernel_kind<cube|vector>` of a function.
KernelKind kernel_kind(const Ctx& c, const Inst& fn);

// The role of each operand of an Opaque statement, in operand order: the
// key of `key = %v`, else the word before the parenthesis holding it
// (`recv(%a, %b)`: "recv"), "[" inside brackets, "" at top level or in an
// unnamed group. Empty when the text does not match the operand count.
std::vector<std::string> operand_roles(const Ctx& c, const Inst& in);
// The k-th operand with role `role`, or kNone.
ValueId role_operand(const Ctx& c, const Inst& in, const std::vector<std::string>& roles,
                     std::string_view role, unsigned k = 0);
unsigned role_count(const std::vector<std::string>& roles, std::string_view role);

// `key = N` as an integer (a trailing `: i32` is ignored); false if absent
// or not an integer.
bool kv_int(const Ctx& c, const Inst& in, std::string_view key, int64_t& out);
// `key = true|false`; false if absent.
bool kv_bool(const Ctx& c, const Inst& in, std::string_view key, bool& out);

// The integer an arith.constant gives v.
bool const_int(const Ctx& c, ValueId v, int64_t& out);

// Static dimensions of a shaped value (tile shape, view or memref dims; kDyn
// for '?'); empty for anything else.
std::vector<int64_t> value_dims(const Ctx& c, ValueId v);

// ---- rule families (each file's entry point) -------------------------------------
void verify_frontend_pipes(Ctx& c, const NpuIndex& ix);  // verify_npu_pipes.cpp
void verify_npu_buffers(Ctx& c, const NpuIndex& ix);     // verify_npu_buffers.cpp
void verify_comm(Ctx& c, const NpuIndex& ix);            // verify_comm.cpp
void verify_npu_structs(Ctx& c, const NpuIndex& ix);     // verify_npu_structs.cpp
void verify_npu_regions(Ctx& c, const NpuIndex& ix);     // verify_npu_regions.cpp

}  // namespace verify_detail
}  // namespace ptoas
