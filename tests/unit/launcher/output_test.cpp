// Unit tests of the forwarding of the ranks' output (launcher/output.{hpp,cpp}).
// The ranks' pipes are real pipes written by the test; the directory mode is
// checked through its files, the terminal mode by pointing fd 1 or 2 at a
// temporary file for the duration of one forwarding.
#include "launcher/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "launcher/options.hpp"
#include "launcher_test_util.hpp"

namespace mpf::launcher {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test_util::CaptureFd;
using test_util::read_file;
using test_util::TempDir;

// A pipe standing for one of a rank's streams. The read end is handed to the
// forwarder (which then owns it); the write end is the rank's and stays here.
class Pipe {
 public:
  Pipe() {
    if (::pipe2(fds_, O_CLOEXEC) != 0) ADD_FAILURE() << "pipe2: " << std::strerror(errno);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe() {
    close_writer();
    if (fds_[0] >= 0) ::close(fds_[0]);
  }
  // The read end, now the forwarder's.
  int give_reader() { return std::exchange(fds_[0], -1); }
  void write(const std::string& text) {
    EXPECT_EQ(::write(fds_[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
  // The rank exits: the forwarder sees end of file.
  void close_writer() {
    if (fds_[1] >= 0) ::close(std::exchange(fds_[1], -1));
  }

 private:
  int fds_[2] = {-1, -1};
};

bool fd_is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

std::size_t open_descriptor_count() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

// --- Directory mode: lines, partial lines, end of file ---------------------

class DirectoryOutput : public ::testing::Test {
 protected:
  std::string file(std::uint32_t rank, const char* stream) const {
    return dir_ / ("rank." + std::to_string(rank) + "/" + stream);
  }
  OutputFormat format(bool tag = false, bool timestamp = false) const {
    return {.tag = tag, .timestamp = timestamp, .directory = dir_.path().string()};
  }
  TempDir dir_;
};

TEST_F(DirectoryOutput, EveryRanksFilesExistBeforeAnyOutput) {
  OutputForwarder forwarder(format(), 11);
  for (std::uint32_t rank = 0; rank < 11; ++rank) {
    for (const char* stream : {"stdout", "stderr"}) {
      EXPECT_TRUE(fs::is_regular_file(file(rank, stream))) << file(rank, stream);
      EXPECT_EQ(fs::file_size(file(rank, stream)), 0u);
    }
  }
  EXPECT_TRUE(forwarder.open_descriptors().empty());
}

TEST_F(DirectoryOutput, WholeLinesAreForwardedPartialLinesHeld) {
  OutputForwarder forwarder(format(), 1);
  Pipe out;
  const int fd = out.give_reader();
  forwarder.attach(0, 1, fd);
  EXPECT_NE(::fcntl(fd, F_GETFL) & O_NONBLOCK, 0) << "drain() must never block mpfrun";
  EXPECT_EQ(forwarder.open_descriptors(), std::vector<int>{fd});

  out.write("one\ntw");
  EXPECT_TRUE(forwarder.drain(fd));
  EXPECT_EQ(read_file(file(0, "stdout")), "one\n");

  out.write("o\nthr");
  EXPECT_TRUE(forwarder.drain(fd));
  EXPECT_EQ(read_file(file(0, "stdout")), "one\ntwo\n");

  out.write("ee\nfour\nfive\n");
  EXPECT_TRUE(forwarder.drain(fd));
  EXPECT_EQ(read_file(file(0, "stdout")), "one\ntwo\nthree\nfour\nfive\n");
  EXPECT_TRUE(forwarder.drain(fd)) << "nothing to read is not the end";
  EXPECT_EQ(read_file(file(0, "stderr")), "");
}

TEST_F(DirectoryOutput, FinalPartialLineGetsANewlineAtEndOfFile) {
  OutputForwarder forwarder(format(), 1);
  Pipe out;
  const int fd = out.give_reader();
  forwarder.attach(0, 1, fd);
  out.write("done\nno newline");
  out.close_writer();
  EXPECT_FALSE(forwarder.drain(fd)) << "end of file";
  EXPECT_EQ(read_file(file(0, "stdout")), "done\nno newline\n");
  EXPECT_TRUE(forwarder.open_descriptors().empty());
  EXPECT_FALSE(fd_is_open(fd)) << "the forwarder closes a stream at its end";
  EXPECT_FALSE(forwarder.drain(fd)) << "a finished stream is not drained again";
}

TEST_F(DirectoryOutput, EmptyStreamWritesNothing) {
  OutputForwarder forwarder(format(true, true), 1);
  Pipe out;
  const int fd = out.give_reader();
  forwarder.attach(0, 2, fd);
  out.close_writer();
  EXPECT_FALSE(forwarder.drain(fd));
  EXPECT_EQ(read_file(file(0, "stderr")), "");
}

TEST_F(DirectoryOutput, CloseAllFlushesPartialLines) {
  Pipe out;
  {
    OutputForwarder forwarder(format(), 1);
    const int fd = out.give_reader();
    forwarder.attach(0, 1, fd);
    out.write("complete\nunfinished");
    EXPECT_TRUE(forwarder.drain(fd));
    forwarder.close_all();
    EXPECT_TRUE(forwarder.open_descriptors().empty());
    EXPECT_FALSE(fd_is_open(fd));
  }
  EXPECT_EQ(read_file(file(0, "stdout")), "complete\nunfinished\n");
}

TEST_F(DirectoryOutput, DestructorFlushesAndClosesEverything) {
  const std::size_t before = open_descriptor_count();
  {
    Pipe out;
    OutputForwarder forwarder(format(), 2);
    forwarder.attach(1, 2, out.give_reader());
    out.write("held back");
    EXPECT_TRUE(forwarder.drain(forwarder.open_descriptors().at(0)));
  }
  EXPECT_EQ(read_file(file(1, "stderr")), "held back\n");
  EXPECT_EQ(open_descriptor_count(), before) << "every pipe and file is closed";
}

TEST_F(DirectoryOutput, StreamsAndRanksGoToTheirOwnFiles) {
  OutputForwarder forwarder(format(), 3);
  Pipe out0, err0, out2;
  const int fd_out0 = out0.give_reader(), fd_err0 = err0.give_reader(), fd_out2 = out2.give_reader();
  forwarder.attach(0, 1, fd_out0);
  forwarder.attach(0, 2, fd_err0);
  forwarder.attach(2, 1, fd_out2);
  out0.write("rank 0 out\n");
  err0.write("rank 0 err\n");
  out2.write("rank 2 out\n");
  for (Pipe* p : {&out0, &err0, &out2}) p->close_writer();
  for (int fd : {fd_out0, fd_err0, fd_out2}) EXPECT_FALSE(forwarder.drain(fd));

  EXPECT_EQ(read_file(file(0, "stdout")), "rank 0 out\n");
  EXPECT_EQ(read_file(file(0, "stderr")), "rank 0 err\n");
  EXPECT_EQ(read_file(file(1, "stdout")), "");
  EXPECT_EQ(read_file(file(1, "stderr")), "");
  EXPECT_EQ(read_file(file(2, "stdout")), "rank 2 out\n");
  EXPECT_EQ(read_file(file(2, "stderr")), "");
}

TEST_F(DirectoryOutput, TagPrefixesEveryLine) {
  OutputForwarder forwarder(format(true), 8);
  Pipe out;
  const int fd = out.give_reader();
  forwarder.attach(7, 1, fd);
  out.write("a\nb\n\nc");
  EXPECT_TRUE(forwarder.drain(fd));
  out.close_writer();
  EXPECT_FALSE(forwarder.drain(fd));
  EXPECT_EQ(read_file(file(7, "stdout")), "[7] a\n[7] b\n[7] \n[7] c\n");
}

TEST_F(DirectoryOutput, TimestampPrefixFormat) {
  OutputForwarder forwarder(format(false, true), 1);
  Pipe out;
  const int fd = out.give_reader();
  forwarder.attach(0, 1, fd);
  out.write("first\nsecond\n");
  out.close_writer();
  EXPECT_FALSE(forwarder.drain(fd));
  // Local time to the millisecond, ISO 8601 without zone: "2026-11-21T14:05:09.042 ".
  static const std::regex kLine(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3} (first|second)\n)");
  const std::string text = read_file(file(0, "stdout"));
  const auto split = text.find('\n') + 1;
  EXPECT_TRUE(std::regex_match(text.substr(0, split), kLine)) << text;
  EXPECT_TRUE(std::regex_match(text.substr(split), kLine)) << text;
}

TEST_F(DirectoryOutput, TimestampComesBeforeTag) {
  OutputForwarder forwarder(format(true, true), 4);
  Pipe out;
  const int fd = out.give_reader();
  forwarder.attach(3, 2, fd);
  out.write("warning\n");
  out.close_writer();
  EXPECT_FALSE(forwarder.drain(fd));
  static const std::regex kLine(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3} \[3\] warning\n)");
  const std::string text = read_file(file(3, "stderr"));
  EXPECT_TRUE(std::regex_match(text, kLine)) << text;
}

// A line longer than the forwarder holds (64 KiB) is passed on in pieces rather
// than held back without bound.
TEST_F(DirectoryOutput, OverlongLineIsForwardedInPieces) {
  OutputForwarder forwarder(format(), 1);
  Pipe out;
  const int fd = out.give_reader();
  forwarder.attach(0, 1, fd);
  // Written in two parts: a pipe holds 64 KiB, and the test is the only reader.
  out.write(std::string(40000, 'x'));
  EXPECT_TRUE(forwarder.drain(fd));
  EXPECT_EQ(fs::file_size(file(0, "stdout")), 0u) << "40000 bytes are still a line being written";
  out.write(std::string(30000, 'x'));
  EXPECT_TRUE(forwarder.drain(fd));
  EXPECT_EQ(fs::file_size(file(0, "stdout")), 70000u) << "a 70000-byte line is not held back";
  out.write("\n");
  out.close_writer();
  EXPECT_FALSE(forwarder.drain(fd));
  EXPECT_EQ(read_file(file(0, "stdout")), std::string(70000, 'x') + "\n");
}

TEST(Output, DrainOfAnUnknownDescriptor) {
  OutputForwarder forwarder({}, 1);
  EXPECT_FALSE(forwarder.drain(12345));
  EXPECT_TRUE(forwarder.open_descriptors().empty());
}

// --- Directory errors ----------------------------------------------------------

TEST(Output, UnusableDirectoryIsAUsageError) {
  TempDir dir;
  test_util::write_file(dir / "file", "a regular file\n");
  try {
    OutputForwarder forwarder({.directory = dir / "file"}, 2);
    FAIL() << "a directory below a regular file was accepted";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("--output-filename: cannot create " + dir / "file/rank.0"));
  }
}

// When the files of rank 0 could be opened but those of rank 1 cannot, the
// constructor throws: the descriptors it had opened must not stay open.
TEST(Output, FailedConstructorClosesWhatItOpened) {
  TempDir dir;
  test_util::write_file(dir / "rank.1", "in the way of rank 1's directory\n");
  const std::size_t before = open_descriptor_count();
  EXPECT_THROW(OutputForwarder({.directory = dir.path().string()}, 2), UsageError);
  EXPECT_TRUE(fs::exists(dir / "rank.0/stdout")) << "rank 0 came first";
  EXPECT_EQ(open_descriptor_count(), before) << "descriptors leaked by the failed constructor";
}

// --- Terminal mode -------------------------------------------------------------

// Forwards `text` as rank `rank`'s stream `stream` (1 or 2) to the terminal, that
// is to this process's descriptor `stream`, and returns what reached it.
std::string forward_to_terminal(OutputFormat format, std::uint32_t rank, int stream, const std::string& text) {
  OutputForwarder forwarder(std::move(format), rank + 1);
  Pipe pipe;
  const int fd = pipe.give_reader();
  forwarder.attach(rank, stream, fd);
  pipe.write(text);
  pipe.close_writer();
  // No assertion may run while fd 1 is captured: gtest would report into it.
  CaptureFd capture(stream);
  const bool more = forwarder.drain(fd);
  std::string forwarded = capture.text();
  EXPECT_FALSE(more);
  return forwarded;
}

OutputFormat tagged() { return {.tag = true, .timestamp = false, .directory = {}}; }

TEST(TerminalOutput, StdoutGoesToDescriptorOne) {
  EXPECT_EQ(forward_to_terminal({}, 0, 1, "hello\nworld"), "hello\nworld\n");
  EXPECT_EQ(forward_to_terminal(tagged(), 5, 1, "tagged\n"), "[5] tagged\n");
}

TEST(TerminalOutput, StderrGoesToDescriptorTwo) {
  EXPECT_EQ(forward_to_terminal(tagged(), 2, 2, "oops\n"), "[2] oops\n");
}

TEST(TerminalOutput, DescriptorIsRestored) {
  struct stat before {}, after {};
  ASSERT_EQ(::fstat(1, &before), 0);
  forward_to_terminal({}, 0, 1, "x\n");
  ASSERT_EQ(::fstat(1, &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_dev, after.st_dev);
}

}  // namespace
}  // namespace mpf::launcher
