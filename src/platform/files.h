// Whole-file reads of small system files (/proc/PID/maps and the like), whose size stat()
// does not know, so they are read until the end.
#pragma once

#include <string>

#include "platform/status.h"

namespace ferry {

// Replaces `out` with the contents of `path`; the error names the path and the reason.
Status readTextFile(const std::string& path, std::string& out);

}  // namespace ferry
