#include "graphrf/core/unrecoverable.hpp"

namespace graphrf {

namespace {
bool g_unrecoverable = false;
}

void mark_unrecoverable() { g_unrecoverable = true; }
bool is_unrecoverable() { return g_unrecoverable; }

}  // namespace graphrf
