// The project's PTX interpreter: runs the PTX text that `ptoas -target=ptx`
// writes (the subset of /work/PTX_CONTRACT.md) on the host, with the
// semantics of the PTX ISA, and reports what a GPU would leave undefined
// (shared-memory races, uninitialised shared reads, out-of-bounds accesses,
// warp-synchronous instructions in divergent code, barrier deadlocks) as
// located faults. docs/ptx_interpreter.md says what is modelled.
//
// Use: parse the module once (Program::parse), then launch an entry as many
// times as needed with the kernel's parameter values and the host buffers
// its pointers may reach. Pointers are host addresses: the kernel reads and
// writes the caller's memory directly, and every access is checked against
// the registered buffers first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ptoas::ptx {

struct Module;  // the decoded module (ir.h)

// A kernel parameter as the entry declares it.
struct ParamDecl {
  std::string name;
  unsigned bytes = 0;   // 1, 2, 4 or 8 (a .b8 array: its size)
  bool is_float = false;
};

struct EntryInfo {
  std::string name;
  std::vector<ParamDecl> params;
  unsigned reqntid[3] = {0, 0, 0};  // 0: no .reqntid
  size_t shared_bytes = 0;           // shared memory in all: static, then the dynamic bytes
  size_t dynamic_shared_bytes = 0;   // announced by // pto.dynamic_shared_bytes (0: none)
  size_t local_bytes = 0;           // per thread
  size_t instructions = 0;
};

class Program {
 public:
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program();

  // Parses PTX text. On an error returns null with `err` set to located
  // messages: "NAME:LINE:COL: error: ..." (NAME defaults to "ptx"), one a line.
  static std::unique_ptr<Program> parse(std::string_view text, std::string& err,
                                        const std::string& name = "ptx");

  std::vector<EntryInfo> entries() const;
  const EntryInfo* entry(std::string_view name) const;
  // ".target" of the module ("sm_80"), ".version" ("7.0").
  const std::string& target() const;
  const std::string& version() const;

  Module& module() { return *m_; }
  const Module& module() const { return *m_; }

 private:
  Program() = default;
  std::unique_ptr<Module> m_;
  std::vector<EntryInfo> info_;
};

// What went wrong in a launch. Every fault names the entry, the PTX line
// (and the .pto line from the last .loc when there is one), the block and
// the thread.
enum class FaultKind : uint8_t {
  None,
  BadLaunch,        // wrong argument count, no .reqntid, bad grid
  GlobalOutOfBounds,
  Misaligned,
  SharedOutOfBounds,
  LocalOutOfBounds,
  ParamOutOfBounds,
  SharedRace,
  SharedUninit,
  SharedWriteConflict,  // two lanes of one instruction write different values to one byte
  CpAsyncPending,       // touching a cp.async destination before its wait
  NotConverged,         // a warp-synchronous instruction against its mask / in divergent code
  BranchDivergent,      // bra.uni that diverges
  BarrierDeadlock,
  StepLimit,
  TimeLimit,
  Trap,
  Unsupported,          // an instruction form the executor does not run
};
const char* fault_kind_name(FaultKind k);

struct Fault {
  FaultKind kind = FaultKind::None;
  std::string entry;
  unsigned line = 0, col = 0;     // PTX position of the instruction
  std::string pto_loc;            // "file.pto:LINE" from .loc, or empty
  unsigned block[3] = {0, 0, 0};
  unsigned thread[3] = {0, 0, 0};
  std::string detail;             // what happened, without the location
  // The whole report: "ptx:LINE:COL: fault: <kind>: <detail> (entry E,
  // block (x,y,z), thread (x,y,z)[, file.pto:L])".
  std::string message;
};

struct Buffer {
  const void* data = nullptr;  // host memory the kernel may read and write
  size_t bytes = 0;
};

struct LaunchOptions {
  unsigned grid[3] = {1, 1, 1};
  // 0: the entry's .reqntid (an entry without one needs this set).
  unsigned block[3] = {0, 0, 0};
  // Warp instructions executed over the whole launch before StepLimit.
  uint64_t step_limit = uint64_t(1) << 32;
  double time_limit_s = 0;  // 0: none
  bool check_races = true;
  bool check_uninit = true;
};

struct LaunchStats {
  uint64_t warp_steps = 0;    // warp instructions issued
  uint64_t thread_steps = 0;  // thread instructions executed (guard true)
  double seconds = 0;
};

// Runs `entry` over the grid. `args` are the raw bits of each parameter in
// declaration order (a pointer: its host address; f32: the bit pattern in
// the low 32 bits). Returns false with `fault` filled on a fault; buffers
// then hold what the kernel wrote so far.
bool launch(Program& prog, std::string_view entry, const std::vector<uint64_t>& args,
            const std::vector<Buffer>& buffers, const LaunchOptions& opts, Fault& fault,
            LaunchStats* stats = nullptr);

}  // namespace ptoas::ptx
