// Forwarding the ranks' standard output and error. Each rank's streams come
// through pipes and are cut into whole lines, so lines of different ranks
// never interleave mid-line; with --tag-output each line is prefixed with
// "[RANK] ", with --timestamp-output with the time it arrived; with
// --output-filename DIR each rank's streams go to DIR/rank.N/stdout and
// DIR/rank.N/stderr instead of the terminal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mpf::launcher {

// What --timestamp-output and --tag-output put before a line of `rank`'s:
// "2026-11-26T20:58:01.123 [3] ".
std::string line_prefix(bool timestamp, bool tag, std::uint32_t rank);

struct OutputFormat {
  bool tag = false;
  bool timestamp = false;
  std::string directory;  // empty: forward to mpfrun's stdout/stderr
};

class OutputForwarder {
 public:
  // With a directory, creates DIR/rank.N and opens every rank's files now;
  // throws UsageError naming the path that cannot be used.
  OutputForwarder(OutputFormat format, std::uint32_t nranks);
  ~OutputForwarder();
  OutputForwarder(const OutputForwarder&) = delete;
  OutputForwarder& operator=(const OutputForwarder&) = delete;

  // Starts forwarding `fd` (a pipe's read end, now owned) as the rank's
  // stdout (stream 1) or stderr (stream 2).
  void attach(std::uint32_t rank, int stream, int fd);
  // Reads what is available on `fd`, a bounded amount a call so that one
  // stream cannot hold the caller; returns false (and closes it) at EOF.
  bool drain(int fd);
  // The rank has exited: what is in its pipes now is what it wrote, and is
  // owed to the user even if close_all() comes before the pipes' EOF (a
  // process it left behind may hold them open for ever).
  void rank_exited(std::uint32_t rank);
  // Descriptors still open, for poll().
  std::vector<int> open_descriptors() const;
  // Forwards what exited ranks left in their pipes, emits any partial last
  // lines and closes everything.
  void close_all();

 private:
  struct Source {
    std::uint32_t rank;
    int stream;
    int fd;
    int sink;  // where lines go: 1, 2 or a file descriptor of ours
    std::string pending;
    std::size_t owed = 0;  // bytes in the pipe when the rank exited, not yet read
  };
  void open_files(std::uint32_t nranks);
  void emit(Source& source, std::string_view line);
  Source* find(int fd);
  // Reads up to `limit` bytes and forwards the whole lines among them;
  // false at EOF.
  bool take(Source& source, std::size_t limit);
  // Emits the partial last line and closes the stream.
  void finish(Source& source);

  OutputFormat format_;
  std::vector<Source> sources_;
  std::vector<int> files_;  // with a directory: rank N's stdout at 2N, stderr at 2N+1
};

}  // namespace mpf::launcher
