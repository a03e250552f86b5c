// The target options of the tools that compile (ptoas, ptorun), read from
// the target registry (encoders/target.h): --target, the codegen options
// and --print-targets, with one spelling and one meaning.
#pragma once
#include <string>

#include "target.h"

namespace CLI {
class App;
}

namespace ptoas::cli {

// --target NAME: a registered name or alias, or "host" (`extra`: more
// names the tool takes, e.g. ptorun's interp). The help lists the listed
// targets with their summaries after `what`.
void add_target_option(CLI::App& app, std::string& target, const std::string& what,
                       const std::string& extra = {});
// --no-sched, --code-limit BYTES, --test-unmasked-tails.
void add_codegen_flags(CLI::App& app, cg::CodegenOptions& o);
// One line per registered target: name, output kind, how ptorun runs it
// ("jit": machine code, "model": the CCE CPU model, "-": not at all), the --emit kinds it answers (comma-separated), its
// summary; the first four are single words.
std::string print_targets();
// "host" to the widest target this CPU runs (nullptr, after an error
// message, when none); any other name through the registry.
const cg::Target* resolve_target(const char* prog, std::string& name);

}  // namespace ptoas::cli
