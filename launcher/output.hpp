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
  // Reads what is available on `fd`; returns false (and closes it) at EOF.
  bool drain(int fd);
  // Descriptors still open, for poll().
  std::vector<int> open_descriptors() const;
  // Emits any partial last lines and closes everything.
  void close_all();

 private:
  struct Source {
    std::uint32_t rank;
    int stream;
    int fd;
    int sink;  // where lines go: 1, 2 or a file descriptor of ours
    std::string pending;
  };
  void open_files(std::uint32_t nranks);
  void emit(Source& source, std::string_view line);
  Source* find(int fd);

  OutputFormat format_;
  std::vector<Source> sources_;
  std::vector<int> files_;  // with a directory: rank N's stdout at 2N, stderr at 2N+1
};

}  // namespace mpf::launcher
