#include "graphrf/io/output_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "graphrf/core/error.hpp"

namespace graphrf {

namespace {

constexpr const char* kTemporarySuffix = ".partial";

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Why an existing `path` must not be replaced ("" if it is a regular file or does not exist). Follows symlinks:
// what matters is what the name leads to.
std::string not_regular_reason(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return {};
  if (S_ISDIR(st.st_mode)) return std::strerror(EISDIR);
  const char* kind = S_ISFIFO(st.st_mode)  ? "a FIFO"
                     : S_ISCHR(st.st_mode) ? "a character device"
                     : S_ISBLK(st.st_mode) ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  return std::string("it is ") + kind + "; only regular files are replaced";
}

// "" unless `out` exists and is the same file as one of the inputs.
std::string input_clash(const std::string& out, const std::vector<NamedInput>& inputs) {
  struct stat out_st {};
  if (::stat(out.c_str(), &out_st) != 0) return {};  // not there yet: it cannot be an input
  for (const auto& input : inputs) {
    struct stat in_st {};
    if (!input.path.empty() && ::stat(input.path.c_str(), &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
        in_st.st_ino == out_st.st_ino)
      return "it is the same file as " + input.option + (input.option.back() == ':' ? "" : " ") + input.path +
             " (writing it would destroy the input)";
  }
  return {};
}

bool is_hex(const std::string& s) { return s.find_first_not_of("0123456789abcdef") == std::string::npos; }
bool is_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

// Whether `entry` (a name in the output's folder) has the form of a temporary of the output named `target`:
// TARGET.<host>.<pid>.<16 hex digits>.partial.
bool is_temporary_of(const std::string& entry, const std::string& target) {
  const std::string suffix = kTemporarySuffix;
  if (entry.size() <= target.size() + 1 + suffix.size() || entry.compare(0, target.size() + 1, target + ".") != 0 ||
      entry.compare(entry.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  const std::string middle = entry.substr(target.size() + 1, entry.size() - target.size() - 1 - suffix.size());
  const auto random_dot = middle.find_last_of('.');
  if (random_dot == std::string::npos || random_dot == 0) return false;
  const auto pid_dot = middle.find_last_of('.', random_dot - 1);
  if (pid_dot == std::string::npos || pid_dot == 0) return false;
  const std::string random = middle.substr(random_dot + 1);
  return random.size() == 16 && is_hex(random) && is_digits(middle.substr(pid_dot + 1, random_dot - pid_dot - 1));
}

// Removes the temporaries of `target` whose owner is dead: those this process can flock(). A live run holds its
// lock until it has published or removed its file, so its temporary is never touched. The name is checked to
// still lead to the locked file before it is removed (it may have been removed and its name reused meanwhile).
void remove_stale_temporaries(const std::string& target) {
  const std::string folder = folder_of(target);
  const std::string base = name_of(target);
  DIR* dir = ::opendir(folder.c_str());
  if (!dir) return;  // creating the temporary will report what is wrong with the folder
  std::vector<std::string> stale;
  while (const dirent* entry = ::readdir(dir))
    if (is_temporary_of(entry->d_name, base)) stale.push_back(folder + "/" + entry->d_name);
  ::closedir(dir);
  for (const auto& path : stale) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat held {}, named {};
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino && S_ISREG(held.st_mode))
      ::unlink(path.c_str());
    ::close(fd);
  }
}

std::string random_hex16() {
  std::random_device device;
  const std::uint64_t value = (std::uint64_t{device()} << 32) ^ device();
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "host";
  std::string host = name;
  for (char& c : host)
    if (c == '/') c = '_';
  return host;
}

// Creates a fresh temporary of `target`, exclusively, and locks it. Returns "" and sets name and fd, or the reason.
std::string create_locked_temporary(const std::string& target, std::string& name, int& fd) {
  const std::string prefix = target + "." + host_name() + "." + std::to_string(::getpid()) + ".";
  for (int attempt = 0; attempt < 16; ++attempt) {
    name = prefix + random_hex16() + kTemporarySuffix;
    fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      // Name the file whose creation failed: it is what the user needs to be able to create.
      return std::string(std::strerror(errno)) + " (creating " + name + ", the temporary file written first and then renamed)";
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) {  // another run is removing it as stale in the instant since it was created
        ::close(fd);
        continue;
      }
      return {};  // no flock() on this file system: unlocked (stale files are then left for the user)
    }
    // Locked, but the name may already have been removed as stale between open() and flock(): check.
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && ::lstat(name.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino)
      return {};
    ::close(fd);
  }
  fd = -1;
  return "could not create a temporary file next to it (16 names in use)";
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// check_output_writable

void check_output_writable(const Communicator& comm, const std::string& path, const std::vector<NamedInput>& inputs) {
  std::string reason;
  if (comm.rank() == 0) {
    if (path.empty()) reason = "the file name is empty";
    if (reason.empty()) reason = not_regular_reason(path);
    if (reason.empty()) reason = input_clash(path, inputs);
  }
  comm.broadcast(reason, 0);
  if (!reason.empty()) {
    if (path.empty()) throw InputError("--out: " + reason, /*collective=*/true);
    throw InputError("--out " + path + ": cannot create file: " + reason, /*collective=*/true);
  }
  const OutputTemporary probe(comm, path);  // created and removed: the folder takes new files
}

// ---------------------------------------------------------------------------------------------------------------
// OutputTemporary

OutputTemporary::OutputTemporary(const Communicator& comm, std::string path) : comm_(comm), target_(std::move(path)) {
  std::string reason;
  if (comm_.rank() == 0) {
    remove_stale_temporaries(target_);
    reason = create_locked_temporary(target_, temporary_, lock_fd_);
  }
  comm_.broadcast(reason, 0);
  if (!reason.empty()) throw InputError("--out " + target_ + ": cannot create file: " + reason, /*collective=*/true);
  comm_.broadcast(temporary_, 0);
}

OutputTemporary::~OutputTemporary() {
  if (comm_.rank() != 0) return;
  if (!published_) ::unlink(temporary_.c_str());
  if (lock_fd_ >= 0) ::close(lock_fd_);  // after the unlink: a stale-file sweep must never see it unlocked
}

std::string OutputTemporary::reserve(std::uint64_t extra) {
  struct stat st {};
  if (lock_fd_ < 0 || ::fstat(lock_fd_, &st) != 0) return {};
  if (::fallocate(lock_fd_, FALLOC_FL_KEEP_SIZE, 0, st.st_size + static_cast<off_t>(extra)) == 0) return {};
  const int err = errno;
  if (err == EOPNOTSUPP || err == ENOSYS) return {};  // cannot allocate ahead here: writes will tell
  return std::strerror(err);
}

void OutputTemporary::trim_reserve() {
  struct stat st {};
  if (lock_fd_ >= 0 && ::fstat(lock_fd_, &st) == 0) (void)::ftruncate(lock_fd_, st.st_size);
}

std::string OutputTemporary::publish() {
  std::string error = not_regular_reason(target_);
  if (error.empty() && std::rename(temporary_.c_str(), target_.c_str()) != 0)
    error = "rename from " + temporary_ + ": " + std::strerror(errno);
  if (!error.empty()) {
    ::unlink(temporary_.c_str());
    return error;
  }
  published_ = true;
  // The lock now sits on the published file, where it marks nothing (sweeps look at temporary names only) and would
  // make HDF5 readers that open it before this object dies fail ("unable to lock file"): released at once.
  ::close(lock_fd_);
  lock_fd_ = -1;
  return {};
}

}  // namespace graphrf
