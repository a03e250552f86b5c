// Opening Zydis by its soname (x86/zydis_lib.h), the one the build linked
// against (CMake's imported target says it: PTOAS_ZYDIS_SONAME).
#include "zydis_lib.h"

#include <dlfcn.h>

#include <mutex>

namespace ptoas::cg::x86 {

namespace {

bool load(ZydisLib& z, std::string& err) {
  void* h = dlopen(PTOAS_ZYDIS_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    err = std::string(PTOAS_ZYDIS_SONAME) + " (Debian package libzydis4) cannot be loaded: " +
          (why ? why : "unknown reason");
    return false;
  }
  bool all = true;
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
    if (!fn && all) err = std::string(PTOAS_ZYDIS_SONAME) + " has no " + name + " (not Zydis 4?)";
    all &= fn != nullptr;
  };
  sym(z.decoder_init, "ZydisDecoderInit");
  sym(z.decode_full, "ZydisDecoderDecodeFull");
  sym(z.mnemonic_string, "ZydisMnemonicGetString");
  sym(z.largest_enclosing, "ZydisRegisterGetLargestEnclosing");
  sym(z.formatter_init, "ZydisFormatterInit");
  sym(z.formatter_set_property, "ZydisFormatterSetProperty");
  sym(z.format_instruction, "ZydisFormatterFormatInstruction");
  return all;
}

}  // namespace

const ZydisLib* zydis_lib(std::string& err) {
  static ZydisLib lib;
  static std::string why;
  static bool ok = false;
  static std::once_flag once;
  std::call_once(once, [] { ok = load(lib, why); });
  if (!ok) err = why;
  return ok ? &lib : nullptr;
}

}  // namespace ptoas::cg::x86
