// Helpers shared by the launcher's unit tests: temporary directories, argv arrays,
// and capturing what a piece of code writes to one of this process's descriptors.
#pragma once

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace mpf::launcher::test_util {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/mpf-unit-launcher-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp: " << std::strerror(errno);
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::string& path, const std::string& text, mode_t mode = 0644) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// An argv array ("mpfrun" first) that owns its strings.
class Argv {
 public:
  Argv(std::initializer_list<std::string> args) : strings_{"mpfrun"} {
    strings_.insert(strings_.end(), args.begin(), args.end());
    for (std::string& s : strings_) pointers_.push_back(s.data());
    pointers_.push_back(nullptr);
  }
  Argv(const Argv&) = delete;
  Argv& operator=(const Argv&) = delete;
  int argc() const { return static_cast<int>(strings_.size()); }
  char** argv() { return pointers_.data(); }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::vector<std::string> strings_;
  std::vector<char*> pointers_;
};

// Sets an environment variable for one scope and restores what was there.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const char* value) : name_(std::move(name)) {
    const char* old = std::getenv(name_.c_str());
    if (old != nullptr) old_ = old;
    had_ = old != nullptr;
    if (value != nullptr) {
      ::setenv(name_.c_str(), value, 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_.c_str(), old_.c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::string old_;
  bool had_ = false;
};

// Sends what this process writes to descriptor `fd` (1 or 2) to a temporary file
// until text() is called or the object is destroyed, then puts the descriptor back.
// No gtest assertion may run while a capture is active on fd 1: gtest reports on
// stdout, and its report would land in the capture.
class CaptureFd {
 public:
  explicit CaptureFd(int fd) : fd_(fd) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    file_ = std::tmpfile();
    saved_ = ::dup(fd_);
    if (file_ != nullptr && saved_ >= 0) ::dup2(::fileno(file_), fd_);
  }
  CaptureFd(const CaptureFd&) = delete;
  CaptureFd& operator=(const CaptureFd&) = delete;
  ~CaptureFd() { restore(); }

  // Restores the descriptor and returns everything written to it meanwhile.
  std::string text() {
    restore();
    return text_;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    ::dup2(saved_, fd_);
    ::close(saved_);
    saved_ = -1;
    if (file_ != nullptr) {
      std::rewind(file_);
      char buf[4096];
      for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, file_)) > 0;) text_.append(buf, n);
      std::fclose(file_);
      file_ = nullptr;
    }
  }

  int fd_;
  int saved_ = -1;
  std::FILE* file_ = nullptr;
  std::string text_;
};

}  // namespace mpf::launcher::test_util
