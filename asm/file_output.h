// Output files that a failed run never leaves behind (DESIGN §7:
// written to a temporary file, renamed into place on success).
#pragma once

#include <string>
#include <string_view>

namespace ptoas {

// Writes `data` to `path` through `path`.tmp-<tag>-<pid>, renamed into
// place. A path naming something other than a regular file (/dev/null, a
// pipe) is written directly: renaming over it would replace it. false: err
// says why, and no temporary file is left.
bool write_file_atomic(const std::string& path, std::string_view data, const char* tag, std::string& err);

}  // namespace ptoas
