// The decoded form of a PTX module: what the parser (parse*.cpp) produces
// and the executor (exec*.cpp) runs. Decoding happens once; an executed
// instruction is a switch on `Op` over fixed-size records, with no string
// work.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptoas::ptx {

// Instruction and register types. ORDER TY: ty_bytes / ty_name follow it.
enum class Ty : uint8_t {
  None, Pred,
  B8, B16, B32, B64, B128,
  U8, U16, U32, U64,
  S8, S16, S32, S64,
  F16, F16x2, BF16, BF16x2, TF32, F32, F64,
};
unsigned ty_bytes(Ty t);
const char* ty_name(Ty t);
inline bool ty_signed(Ty t) { return t >= Ty::S8 && t <= Ty::S64; }
inline bool ty_float(Ty t) { return t >= Ty::F16; }
inline bool ty_int(Ty t) { return t >= Ty::B8 && t <= Ty::S64; }

enum class Op : uint8_t {
  Nop,  // membar, fence, prefetch, pragma-like instructions
  Mov, Ld, St, Cvta, CvtaTo,
  Add, Sub, Mul, Mad, Fma, Div, Rem, Min, Max, Abs, Neg,
  And, Or, Xor, Not, Cnot, Shl, Shr, Shf, Bfe, Bfi, Popc, Clz, Brev, Prmt, Lop3,
  Setp, Selp, Slct, Cvt,
  Rcp, Sqrt, Rsqrt, Ex2, Lg2, Sin, Cos, Tanh, Testp, Copysign,
  Bra, Ret, Exit, Trap,
  Bar, BarWarp,
  Shfl, Vote, Redux, Activemask,
  Mma, Ldmatrix,
  CpAsync, CpCommit, CpWait,
  Atom,
};

// Rounding modifiers.
enum class Rnd : uint8_t { None, RN, RZ, RM, RP, RNA, RNI, RZI, RMI, RPI };

// setp / compare operators.
enum class Cmp : uint8_t { EQ, NE, LT, LE, GT, GE, LO, LS, HI, HS, EQU, NEU, LTU, LEU, GTU, GEU, NUM, NAN_ };
enum class BoolOp : uint8_t { None, And, Or, Xor };

// State spaces.
enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const };

// Special registers.
enum class Sreg : uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  Laneid, Warpid, Nwarpid, LanemaskEq, LanemaskLt, LanemaskLe, LanemaskGt, LanemaskGe,
  Clock, Clock64, Smid, Gridid,
};

struct Opnd {
  enum Kind : uint8_t { None, Reg, Pred, Imm, Addr, Vec, Sink, Special, Label };
  Kind kind = None;
  bool neg = false;       // Pred: '!p'
  Sreg sreg = Sreg::TidX; // Special
  // Addr: the address is (base register, or none) + imm. A symbol in an
  // address is resolved at decode: `sym_space` says which space its value
  // is an address in (shared offset, local offset, param offset, host
  // address of module data).
  Space sym_space = Space::Generic;
  bool has_base = false;
  bool dyn_shared = false;  // a symbol of the dynamic shared memory: the entry's base is added at its end
  uint32_t reg = 0;       // Reg / Pred / Addr base: the index; Vec: first element in Entry::ops
  uint16_t count = 0;     // Vec: elements
  int64_t imm = 0;        // Imm: the bits; Addr: the offset; Label: instruction index
};

// Flags on an instruction (Inst::flags).
enum : uint32_t {
  F_FTZ = 1u << 0, F_SAT = 1u << 1, F_APPROX = 1u << 2, F_FULL = 1u << 3,
  F_HI = 1u << 4, F_LO = 1u << 5, F_WIDE = 1u << 6, F_UNI = 1u << 7,
  F_TRANS = 1u << 8, F_NAN = 1u << 9, F_RELU = 1u << 10, F_SATFINITE = 1u << 11,
  F_ABS = 1u << 12, F_CC = 1u << 13, F_ARRIVE = 1u << 14, F_WRAP = 1u << 15,
  F_LEFT = 1u << 16, F_SHIFT_ARITH = 1u << 17, F_CP_CG = 1u << 18, F_XORSIGN = 1u << 19,
  F_ALL = 1u << 20,  // cp.async.wait_all
};

// Mode bytes (Inst::mode), by op.
enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { All, Any, Uni, Ballot };
enum class AtomOp : uint8_t { Add, Min, Max, Inc, Dec, And, Or, Xor, Exch, Cas };
// M16N16K16Wave: not PTX. The amdgpu backend's wave-level matrix op in the
// PTX it generates (docs/amdgpu_backend.md, "tmatmul"): a wave64's
// v_mfma_f32_16x16x16 (A, B 2 regs, C, D 4) or a wave32's
// v_wmma_f32_16x16x16 (8, 8, 8); the PTX interpreter refuses it.
enum class MmaShape : uint8_t { M16N8K16, M16N8K8, M16N8K32, M16N16K16Wave };
enum class TestpMode : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };

struct Inst {
  Op op = Op::Nop;
  Ty type = Ty::None;   // the instruction type (cvt/mma: destination)
  Ty type2 = Ty::None;  // cvt: source; mma: A element type; slct: the selector's type
  Ty type3 = Ty::None;  // mma: B element type
  Rnd rnd = Rnd::None;
  Cmp cmp = Cmp::EQ;
  BoolOp boolop = BoolOp::None;
  Space space = Space::Generic;
  uint8_t vec = 1;      // ld/st: .v2 / .v4; ldmatrix: .x1/.x2/.x4
  uint8_t mode = 0;     // ShflMode, VoteMode, AtomOp (redux too), MmaShape, TestpMode
  uint8_t nops = 0;
  bool guard_neg = false;
  int32_t guard = -1;   // predicate register, or -1
  uint32_t flags = 0;
  uint32_t op0 = 0;     // first operand in Entry::ops
  uint32_t line = 0, col = 0;
  uint32_t loc = 0;     // index into Module::locs + 1 (the last .loc before it), 0: none
};

struct Loc {
  uint32_t file = 0, line = 0, col = 0;
};

// A variable in shared, local or module-global memory.
struct Var {
  Space space = Space::Global;
  bool dynamic = false;  // .extern .shared name[]: the dynamic shared memory
  uint64_t align = 1;
  uint64_t offset = 0;  // shared/local: offset in the space; global/const: index into Module::data
  uint64_t bytes = 0;
};

struct Entry {
  std::string name;
  uint32_t line = 0;
  std::vector<std::string> param_name;
  std::vector<uint32_t> param_offset;  // in the param buffer
  std::vector<uint8_t> param_bytes;
  std::vector<bool> param_float;
  uint32_t param_buffer_bytes = 0;
  unsigned reqntid[3] = {0, 0, 0};
  uint64_t shared_bytes = 0;  // static shared: the module's, then the entry's
  // Dynamic shared memory (PTX_CONTRACT, amended): the module's
  // `.extern .shared ... pto_smem[]` starts at dyn_base, after the static
  // bytes; the size is announced by `// pto.dynamic_shared_bytes N` above
  // the entry.
  uint64_t dyn_base = 0, dyn_bytes = 0;
  bool uses_dyn = false;
  uint64_t shared_total() const { return uses_dyn || dyn_bytes ? dyn_base + dyn_bytes : shared_bytes; }
  uint64_t local_bytes = 0;
  std::vector<uint8_t> reg_bits;   // declared width of each register (8..64)
  std::vector<bool> reg_signed;    // declared .sN (ld sign-extends into it)
  uint32_t npreds = 0;
  std::vector<Inst> code;
  std::vector<Opnd> ops;           // operand pool
  std::vector<std::string> text;   // the instruction's opcode as written (messages)
};

struct Module {
  std::string name = "ptx";
  std::string version, target;
  unsigned address_size = 64;
  std::vector<Entry> entries;
  std::unordered_map<std::string, size_t> entry_index;
  uint64_t module_shared_bytes = 0;
  uint64_t dyn_align = 16;  // the strictest alignment of a dynamic shared variable
  // Module-scope .global / .const data: one host allocation per variable
  // (stable addresses: a deque of buffers), registered with every launch.
  std::deque<std::vector<uint8_t>> data;
  std::vector<std::string> files;  // .file N "path" (index N)
  std::vector<Loc> locs;
};

}  // namespace ptoas::ptx
