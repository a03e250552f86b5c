// Stack-local structs and integer pointers (the official type and op
// verifiers, and its struct provenance check):
//   !pto.struct<T, ...>   fields are 8..64-bit integers, f16/bf16/f32/f64 or
//                         nested structs (the C++ member of each must exist)
//   pto.declare_struct    the only producer of a struct value; the value
//                         never reaches a terminator (it points into the
//                         frame), a function argument or result
//   pto.struct_get/set    %s[i, j, ...]: a constant path of field indices
//                         that ends at a scalar of the value's type
//   pto.inttoptr          an i64 address to a !pto.ptr whose element type
//                         has a C++ spelling; pto.ptrtoint back to i64
// Struct types are kept as written (TypeKind::Other); their fields come from
// the canonical spelling.
#include <cstdlib>
#include <unordered_set>

#include "verify_npu.h"

namespace ptoas {
namespace verify_detail {
namespace {

bool is_struct(std::string_view t) { return t.rfind("!pto.struct<", 0) == 0 && t.back() == '>'; }

// Top-level comma-separated parts inside the outer <...>, trimmed.
std::vector<std::string> struct_fields(std::string_view t) {
  std::vector<std::string> out;
  std::string_view in = t.substr(12, t.size() - 13);
  int depth = 0;
  std::string cur;
  auto push = [&]() {
    size_t b = cur.find_first_not_of(' '), e = cur.find_last_not_of(' ');
    out.push_back(b == std::string::npos ? std::string() : cur.substr(b, e - b + 1));
    cur.clear();
  };
  for (char ch : in) {
    if (ch == '<' || ch == '(' || ch == '[') ++depth;
    if (ch == '>' || ch == ')' || ch == ']') --depth;
    if (ch == ',' && depth == 0) {
      push();
      continue;
    }
    cur += ch;
  }
  if (!cur.empty() || !out.empty()) push();
  if (out.size() == 1 && out[0].empty()) out.clear();
  return out;
}

// A field the generated C++ can hold as a scalar member.
bool storable_scalar(std::string_view f) {
  DType d = parse_dtype(f);
  switch (d) {
    case DType::I8: case DType::U8: case DType::SI8: case DType::I16: case DType::U16:
    case DType::SI16: case DType::I32: case DType::U32: case DType::SI32: case DType::I64:
    case DType::U64: case DType::SI64: case DType::F16: case DType::BF16: case DType::F32:
    case DType::F64:
      return true;
    default:
      return false;
  }
}

bool scalar_type(std::string_view f) {
  DType d = parse_dtype(f);
  return d != DType::None && d != DType::Index;
}

std::string strip(std::string_view s) {
  std::string o;
  for (char ch : s)
    if (ch != ' ') o += ch;
  return o;
}

// Element types a !pto.ptr made from an integer may point at.
bool emitc_scalar(DType d) {
  switch (d) {
    case DType::F16: case DType::BF16: case DType::F32: case DType::F64:
    case DType::I8: case DType::U8: case DType::SI8: case DType::I16: case DType::U16:
    case DType::SI16: case DType::I32: case DType::U32: case DType::SI32: case DType::I64:
    case DType::U64: case DType::SI64: case DType::F8E4M3: case DType::F8E4M3FN:
    case DType::F8E5M2: case DType::HiF8: case DType::F4E1M2x2: case DType::F4E2M1x2:
      return true;
    default:
      return false;
  }
}

bool int64_type(DType d) { return d == DType::I64 || d == DType::U64 || d == DType::SI64; }

bool is_terminator(Op op) {
  return op == Op::Return || op == Op::Yield || op == Op::Condition || op == Op::PtoYield;
}

class StructRules {
 public:
  StructRules(Ctx& c, const NpuIndex& ix) : c_(c), ix_(ix) {}

  void run() {
    check_types();
    for (InstId id : ix_.order) {
      if (c_.stop()) return;
      const Inst& in = c_.m.insts[id];
      switch (in.op) {
        case Op::Func: func_signature(in); break;
        case Op::DeclareStruct: declare(in); break;
        case Op::StructGet: case Op::StructSet: access(in); break;
        case Op::IntToPtr: inttoptr(in); break;
        case Op::PtrToInt: ptrtoint(in); break;
        default: provenance(in); break;
      }
    }
  }

 private:
  Ctx& c_;
  const NpuIndex& ix_;

  bool err(const Inst& in, const std::string& msg) {
    c_.error(in.loc, q(in.op) + " op " + msg);
    return false;
  }
  std::string_view text_of(ValueId v) const {
    TypeId t = c_.vtype_id(v);
    return t == kNone ? std::string_view() : c_.m.types.text(t);
  }

  // The type verifier, once per struct type, at the first value that has it.
  std::string bad_struct(std::string_view t) {
    std::vector<std::string> fields = struct_fields(t);
    if (fields.empty()) return "'!pto.struct' requires at least one field";
    for (size_t i = 0; i < fields.size(); ++i) {
      const std::string& f = fields[i];
      if (is_struct(f)) {
        std::string inner = bad_struct(f);
        if (!inner.empty()) return inner;
        continue;
      }
      if (!storable_scalar(f))
        return "'!pto.struct' field " + std::to_string(i) + " type " + f +
               " is not scalar-storable; only i8/i16/i32/i64 (signed, unsigned or signless), "
               "f16/bf16/f32/f64, or a nested !pto.struct are allowed (!pto.local_array cannot be "
               "a field because emitc.member cannot yield an array lvalue; tile_buf / tensor_view "
               "belong to the vec/cube world)";
    }
    return {};
  }

  void check_types() {
    std::unordered_set<TypeId> seen;
    for (ValueId v = 0; v < c_.m.values.size() && !c_.stop(); ++v) {
      TypeId t = c_.m.values[v].type;
      if (t == kNone || !seen.insert(t).second) continue;
      std::string_view text = c_.m.types.text(t);
      if (!is_struct(text)) continue;
      std::string m = bad_struct(text);
      if (!m.empty()) c_.error(c_.m.values[v].loc, m);
    }
  }

  void func_signature(const Inst& fn) {
    if (const Region* body = c_.region(fn, 0)) {
      std::vector<ValueId> params = c_.region_args(*body);
      for (size_t i = 0; i < params.size(); ++i)
        if (is_struct(text_of(params[i])))
          c_.error(fn.loc, "'func.func' op argument " + std::to_string(i) + " has type " +
                               std::string(text_of(params[i])) +
                               ", but a stack-local struct must not be a function argument; "
                               "structs must originate from 'pto.declare_struct' in the same function");
    }
    for (unsigned i = 0; i < fn.n_outs; ++i) {
      size_t k = size_t(fn.opnd) + i;
      if (k >= c_.m.type_lists.size() || c_.m.type_lists[k] == kNone) continue;
      std::string_view t = c_.m.types.text(c_.m.type_lists[k]);
      if (is_struct(t))
        c_.error(fn.loc, "'func.func' op result " + std::to_string(i) + " has type " + std::string(t) +
                             ", but a stack-local struct must not be returned: the value is a "
                             "pointer into the callee's frame; keep the struct in its declaring "
                             "function (pto.struct_set mutates in place)");
    }
  }

  // Any other op with a struct result relays storage it does not own.
  void provenance(const Inst& in) {
    for (unsigned i = 0; i < in.n_res; ++i) {
      std::string_view t = text_of(c_.result(in, i));
      if (!is_struct(t)) continue;
      err(in, "result " + std::to_string(i) + " has type " + std::string(t) +
                  ", but only 'pto.declare_struct' may produce a !pto.struct result; derived "
                  "results hide the stack-storage lifetime and can escape their declaring scope");
      return;
    }
  }

  void declare(const Inst& in) {
    if (in.n_res == 0) return;
    ValueId s = c_.result(in, 0);
    if (s >= ix_.users.size()) return;
    for (InstId u : ix_.users[s]) {
      Op op = c_.m.insts[u].op;
      if (!is_terminator(op)) continue;
      err(in, "stack-local struct must not escape the scope that declares it, but its value is "
              "passed to '" + std::string(op_name(op)) +
              "', which would expose the address of storage that is about to die; declare the "
              "struct in the outer scope and mutate it from the nested region instead");
      return;
    }
  }

  // `%r = pto.struct_get %s[i, ...] : S -> T` / `pto.struct_set %s[i, ...], %v : S, T`
  void access(const Inst& in) {
    if (c_.n_operands(in) < 1) return;
    std::string_view t = text_of(c_.operand(in, 0));
    if (!is_struct(t)) return;
    std::string_view b = c_.body(in);
    size_t open = b.find('['), close = b.find(']');
    std::vector<int64_t> path;
    if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
      std::string inner(b.substr(open + 1, close - open - 1));
      for (size_t i = 0; i < inner.size();) {
        while (i < inner.size() && (inner[i] == ' ' || inner[i] == ',')) ++i;
        if (i >= inner.size()) break;
        char* end = nullptr;
        long long x = std::strtoll(inner.c_str() + i, &end, 10);
        if (end == inner.c_str() + i) return;  // not a constant path
        path.push_back(x);
        i = size_t(end - inner.c_str());
      }
    }
    if (path.empty()) return (void)err(in, "struct path must have at least one index");
    std::string cur(t);
    for (size_t d = 0; d < path.size(); ++d) {
      if (!is_struct(cur))
        return (void)err(in, "struct path index " + std::to_string(d) +
                                 " descends into non-struct field of type " + cur);
      std::vector<std::string> fields = struct_fields(cur);
      if (path[d] < 0 || path[d] >= int64_t(fields.size()))
        return (void)err(in, "struct path index " + std::to_string(d) + " (" + std::to_string(path[d]) +
                                 ") is out of range for " + cur + " with " +
                                 std::to_string(fields.size()) + " field(s)");
      cur = fields[size_t(path[d])];
    }
    if (!scalar_type(cur))
      return (void)err(in, "struct path must end at a scalar field, but ends at " + cur +
                               "; extend the path to reach a scalar inside it");
    bool get = in.op == Op::StructGet;
    ValueId v = get ? (in.n_res ? c_.result(in, 0) : kNone) : (c_.n_operands(in) > 1 ? c_.operand(in, 1) : kNone);
    std::string_view vt = text_of(v);
    if (!vt.empty() && vt != "!pto.unknown" && strip(vt) != strip(cur))
      err(in, std::string(get ? "result" : "value") + " type " + std::string(vt) +
                  " does not match field type " + cur + " at the given path");
  }

  void inttoptr(const Inst& in) {
    if (c_.n_operands(in) < 1 || in.n_res == 0) return;
    const Type* a = c_.vtype(c_.operand(in, 0));
    if (a && !(a->kind == TypeKind::Scalar && int64_type(a->elem)))
      return (void)err(in, "address operand must be i64");
    const Type* r = c_.vtype(c_.result(in, 0));
    if (!r || r->kind != TypeKind::Ptr) return (void)err(in, "result must be !pto.ptr<...>");
    if (!emitc_scalar(r->elem))
      err(in, "result element type is not supported by EmitC: '" +
                  std::string(r->elem == DType::None ? "?" : dtype_name(r->elem)) + "'");
  }

  void ptrtoint(const Inst& in) {
    if (in.n_res == 0) return;
    const Type* r = c_.vtype(c_.result(in, 0));
    if (r && !(r->kind == TypeKind::Scalar && int64_type(r->elem)))
      return (void)err(in, "result must be i64");
    const Type* p = c_.vtype(c_.operand(in, 0));
    if (p && p->kind != TypeKind::Ptr) err(in, "ptr operand must be !pto.ptr<...>");
  }
};

}  // namespace

void verify_npu_structs(Ctx& c, const NpuIndex& ix) { StructRules(c, ix).run(); }

}  // namespace verify_detail
}  // namespace ptoas
