#include "graphrf/core/reuse_freed_memory.hpp"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

namespace graphrf {

void reuse_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);            // every block from the heap, none by mmap (which returns it at free)
  mallopt(M_TRIM_THRESHOLD, 1 << 30);  // the top of the heap goes back to the kernel only past 1 GiB free
#endif
}

bool heap_wants_huge_page_restart(const char* tunables, const char* preload, std::string_view thp_enabled) {
  if (tunables != nullptr) return false;
  if (preload != nullptr && std::string_view(preload).find("vgpreload") != std::string_view::npos) return false;
  return thp_enabled.find("[madvise]") != std::string_view::npos;
}

void restart_with_huge_page_heap(char** argv) {
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::string thp_enabled((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!heap_wants_huge_page_restart(std::getenv("GLIBC_TUNABLES"), std::getenv("LD_PRELOAD"), thp_enabled)) return;
  // Set before the exec, so the new image does not start again (GLIBC_TUNABLES is then set).
  if (::setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1) != 0) return;
  // By its own path, so that ps and top name the process after it (an exec names a process after the file it
  // ran: /proc/self/exe would make it "exe"); by /proc/self/exe when the file is gone (rebuilt while running).
  char path[4096];
  const ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (length > 0) {
    path[length] = '\0';
    ::execv(path, argv);
  }
  ::execv("/proc/self/exe", argv);
  ::unsetenv("GLIBC_TUNABLES");  // the exec failed (no /proc): go on as started
#else
  (void)argv;
#endif
}

}  // namespace graphrf
