#include "launcher/output.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "common/system_error.hpp"
#include "launcher/options.hpp"

namespace mpf::launcher {
namespace {

// A line longer than this is forwarded in pieces rather than held back.
constexpr std::size_t kMaxLine = 64 * 1024;
// At most this much (a default pipe's worth) is taken from one stream per
// drain(): a process that writes faster than mpfrun's reader takes the lines
// must not keep mpfrun from the other ranks, from a rank's death or from ^C.
constexpr std::size_t kDrainQuantum = 64 * 1024;

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        // Our stdout or stderr is a file description we share with the
        // processes that started us, and one of them made it non-blocking.
        // A reader slower than the ranks fills it, above all when a stop
        // makes every rank's pending output arrive at once: wait for room as
        // on a blocking descriptor rather than drop what the ranks wrote.
        pollfd room{fd, POLLOUT, 0};
        ::poll(&room, 1, -1);
        continue;
      }
      return;  // the reader or the file went away: nothing better to do with output
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

std::string timestamp_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03d ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

std::string line_prefix(bool timestamp, bool tag, std::uint32_t rank) {
  std::string out;
  if (timestamp) out += timestamp_now();
  if (tag) out += "[" + std::to_string(rank) + "] ";
  return out;
}

OutputForwarder::OutputForwarder(OutputFormat format, std::uint32_t nranks) : format_(std::move(format)) {
  sources_.reserve(2 * nranks);
  if (format_.directory.empty()) return;
  // Every file is opened before any rank starts, so an unusable directory is
  // reported before anything runs. A constructor that throws runs no
  // destructor: close what was opened before rethrowing.
  try {
    open_files(nranks);
  } catch (...) {
    for (int f : files_) ::close(f);
    files_.clear();
    throw;
  }
}

void OutputForwarder::open_files(std::uint32_t nranks) {
  for (std::uint32_t rank = 0; rank < nranks; ++rank) {
    const std::string dir = format_.directory + "/rank." + std::to_string(rank);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw UsageError("--output-filename: cannot create " + dir + ": " + ec.message());
    for (const char* name : {"/stdout", "/stderr"}) {
      const std::string path = dir + name;
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) throw UsageError("--output-filename: " + common::system_error_text("open " + path, errno));
      files_.push_back(fd);
    }
  }
}

OutputForwarder::~OutputForwarder() { close_all(); }

void OutputForwarder::attach(std::uint32_t rank, int stream, int fd) {
  const int sink = format_.directory.empty() ? stream : files_[2 * rank + static_cast<std::uint32_t>(stream - 1)];
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  sources_.push_back({rank, stream, fd, sink, {}, 0});
}

OutputForwarder::Source* OutputForwarder::find(int fd) {
  for (Source& s : sources_) {
    if (s.fd == fd) return &s;
  }
  return nullptr;
}

void OutputForwarder::emit(Source& source, std::string_view line) {
  std::string out = line_prefix(format_.timestamp, format_.tag, source.rank);
  out += line;
  // One write per line: lines from different ranks never mix.
  write_all(source.sink, out.data(), out.size());
}

bool OutputForwarder::take(Source& source, std::size_t limit) {
  char buf[16384];
  for (std::size_t taken = 0; taken < limit;) {
    const ssize_t n = ::read(source.fd, buf, std::min(sizeof buf, limit - taken));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    if (n <= 0) return false;  // EOF (or an error, which ends the stream the same way)
    const auto got = static_cast<std::size_t>(n);
    taken += got;
    source.owed -= std::min(source.owed, got);
    source.pending.append(buf, got);
    std::size_t start = 0;
    for (std::size_t nl; (nl = source.pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      emit(source, std::string_view(source.pending).substr(start, nl + 1 - start));
    }
    source.pending.erase(0, start);
    if (source.pending.size() >= kMaxLine) {
      emit(source, source.pending);
      source.pending.clear();
    }
  }
  return true;
}

void OutputForwarder::finish(Source& source) {
  if (!source.pending.empty()) {
    source.pending += '\n';
    emit(source, source.pending);
    source.pending.clear();
  }
  ::close(source.fd);
  source.fd = -1;
}

bool OutputForwarder::drain(int fd) {
  Source* source = find(fd);
  if (source == nullptr) return false;
  if (take(*source, kDrainQuantum)) return true;
  finish(*source);
  return false;
}

void OutputForwarder::rank_exited(std::uint32_t rank) {
  for (Source& s : sources_) {
    int unread = 0;
    if (s.rank == rank && s.fd >= 0 && ::ioctl(s.fd, FIONREAD, &unread) == 0) {
      s.owed = static_cast<std::size_t>(unread);
    }
  }
}

std::vector<int> OutputForwarder::open_descriptors() const {
  std::vector<int> fds;
  for (const Source& s : sources_) {
    if (s.fd >= 0) fds.push_back(s.fd);
  }
  return fds;
}

void OutputForwarder::close_all() {
  for (Source& s : sources_) {
    if (s.fd < 0) continue;
    // What is owed is in the pipe already: taking it cannot wait on anyone.
    if (s.owed > 0) take(s, s.owed);
    finish(s);
  }
  for (int f : files_) ::close(f);
  files_.clear();
}

}  // namespace mpf::launcher
