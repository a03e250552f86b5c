// The link step of the code-object writer (code_object.h): lld's ELF
// driver in-process, as ROCm links (-shared). On its own because lld's
// driver brings LTO, the pass pipeline and every LLVM target with it
// (about 120 MB of static code): only the programs that write or run code
// objects link it (an OBJECT library in CMake), and the code generator
// reaches it through a weak reference (encoders/amdgpu/target.cpp).
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/raw_ostream.h>

#include <lld/Common/Driver.h>

#include <mutex>

#include "code_object.h"

LLD_HAS_DRIVER(elf)

// Debian's LLVM 19 builds Polly into its static LTO and pass libraries but
// ships Polly only as a plugin (LLVMPolly.so), so lld's static driver
// leaves this one entry point undefined. lld reaches LTO only for bitcode
// inputs, which a code object never has; an empty plugin is what "no Polly"
// means to LLVM's pass builder.
llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ptoas-no-polly", "0", [](llvm::PassBuilder&) {}};
}

namespace ptoas::cg::amdgpu {

namespace {

// ---------------------------------------------------------------------------
// Linking.

// A temporary file that is gone when this is.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty()) llvm::sys::fs::remove(path);
  }
  bool create(const char* suffix, std::string& err) {
    int fd = -1;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile("ptoas-amdgpu", suffix, fd, path)) {
      err = "amdgpu: cannot create a temporary file: " + ec.message();
      path.clear();
      return false;
    }
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    return true;
  }
};

// lld keeps its state in process-wide globals (CommonLinkerContext);
// lldMain tears them down after each link, so links follow one another.
std::mutex& lld_mutex() {
  static std::mutex m;
  return m;
}

bool lld_link(const std::vector<uint8_t>& obj, std::vector<uint8_t>& hsaco, std::string& err) {
  TempFile in, out;
  if (!in.create("o", err) || !out.create("hsaco", err)) return false;
  {
    std::error_code ec;
    llvm::raw_fd_ostream f(in.path, ec);
    if (!ec) f.write(reinterpret_cast<const char*>(obj.data()), obj.size());
    f.close();
    if (ec || f.has_error()) {
      err = "amdgpu: cannot write " + std::string(in.path) + ": " + (ec ? ec : f.error()).message();
      f.clear_error();
      return false;
    }
  }
  std::string lld_out, lld_err;
  llvm::raw_string_ostream so(lld_out), se(lld_err);
  // ROCm's own link line: a shared object of the one input. One thread: the
  // inputs are a few KiB, and a compiler should not start a pool per call.
  const char* args[] = {"ld.lld", "-shared", "--threads=1", in.path.c_str(), "-o", out.path.c_str()};
  lld::Result r;
  {
    std::lock_guard<std::mutex> lock(lld_mutex());
    r = lld::lldMain(args, so, se, {{lld::Gnu, &lld::elf::link}});
  }
  if (r.retCode != 0) {
    err = "amdgpu: lld failed to link the code object:\n" + lld_err + lld_out;
    return false;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buf = llvm::MemoryBuffer::getFile(out.path, /*IsText=*/false);
  if (!buf) {
    err = "amdgpu: cannot read lld's output: " + buf.getError().message();
    return false;
  }
  const auto* p = reinterpret_cast<const uint8_t*>((*buf)->getBufferStart());
  hsaco.assign(p, p + (*buf)->getBufferSize());
  return true;
}

}  // namespace

bool link_code_object(const std::vector<uint8_t>& obj, std::vector<uint8_t>& hsaco, std::string& err) {
  hsaco.clear();
  if (!lld_link(obj, hsaco, err)) {
    hsaco.clear();
    return false;
  }
  return true;
}

bool build_code_object(const CodeObjectInput& in, std::vector<uint8_t>& hsaco, std::string& err) {
  std::vector<uint8_t> obj;
  hsaco.clear();
  return assemble_code_object(in, obj, err) && link_code_object(obj, hsaco, err);
}

}  // namespace ptoas::cg::amdgpu
