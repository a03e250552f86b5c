// The project's AMDGPU interpreter: runs the kernels of a linked code
// object (.hsaco) that `ptoas -target=amdgpu` writes, for gfx90a, gfx942
// (wave64) and gfx1100 (wave32), on the host. It implements exactly the
// instructions the backend emits (docs/amdgpu_backend.md) and reports
// what a GPU would leave undefined as located faults: out-of-bounds global
// or LDS accesses, reads of LDS no lane wrote, LDS races between waves of
// a workgroup, a register used before the s_waitcnt that makes its load
// complete, runaway kernels. docs/amdgpu_interpreter.md says what is
// modelled and what is not.
//
// Use: load the code object once (Program::load), then launch kernels as
// many times as needed. Pointers in the kernarg segment are host
// addresses: the kernel reads and writes the caller's memory directly,
// after every access is checked against the registered buffers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ptoas::amdgpu_emu {

struct Buffer {
  const void* host = nullptr;  // memory the kernel may read and write
  size_t bytes = 0;
  // Memory each workgroup uses as its own between barriers (the tiles of a
  // kernel past the LDS): two waves of a workgroup touching a byte between
  // the same two barriers, one writing, is a race fault, as in the LDS.
  bool workgroup_local = false;
};

struct LaunchSpec {
  std::string kernel;
  std::vector<uint8_t> kernarg;  // the kernarg segment, as the kernel reads it from s[0:1]
  unsigned grid_x = 1;           // workgroups
  unsigned block_x = 256;        // work-items per workgroup (at most 1024)
  std::vector<Buffer> buffers;
  double timeout_s = 0;          // wall-clock limit, 0: none
  uint64_t step_limit = uint64_t(1) << 32;  // wave instructions over the launch before a fault
};

struct Stats {
  uint64_t instructions = 0;  // wave instructions issued
  uint64_t waves = 0;         // waves run
};

struct Module;  // the decoded kernels (ir.h)

class Program {
 public:
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program();

  // Reads and decodes every kernel; null with `err` set when the object is
  // unreadable or uses an instruction form the interpreter does not run
  // (the message names the kernel, the offset and the text).
  static std::unique_ptr<Program> load(std::span<const uint8_t> hsaco, std::string& err);

  std::string chip() const;  // "gfx942", "gfx90a", "gfx1100"
  std::vector<std::string> kernels() const;

  // Runs `spec.kernel` over the grid. False with `err` set on a fault:
  // "<what happened> (`<instruction text>` at offset 0x.., kernel K,
  // workgroup W, wave V[, lane L])". Buffers then hold what the kernel
  // wrote so far.
  bool launch(const LaunchSpec& spec, Stats& stats, std::string& err);

 private:
  Program();
  std::unique_ptr<Module> m_;
};

}  // namespace ptoas::amdgpu_emu
