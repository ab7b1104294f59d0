// Generates man 7 mpf at build time (SPEC §2 "Tunables: one table", STYLE 2 and 11):
//
//   gen_tunables_man INPUT OUTPUT
//
// copies the hand-written page INPUT (man/man7/mpf.7.in) to OUTPUT, replacing
// the line "@TUNABLES@" with one roff entry per row of kTunableTable
// (lib/common/tunables_table.hpp) and every "@VERSION@" with the project
// version. Names, variables, kinds, allowed values, defaults and doc lines all
// come from the table through the same functions mpfrun --list-params uses,
// so the page cannot disagree with the library it is installed with.
// OUTPUT is replaced atomically; on any error nothing is written and the
// command exits 1 with one line saying why.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/tunables.hpp"
#include "common/version.hpp"

namespace {

constexpr std::string_view kTunablesLine = "@TUNABLES@";
constexpr std::string_view kVersionToken = "@VERSION@";

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// A word such as "start-up" or "round-robin": letters joined by single
// hyphens, ignoring surrounding punctuation. Its hyphens are typographic and
// stay "-"; every other hyphen (options, paths, negative numbers, names like
// mpf-<uid>) is a literal ASCII character and is written "\-".
bool is_hyphenated_word(std::string_view token) {
  while (!token.empty() && std::string_view("(\"'").find(token.front()) != std::string_view::npos) {
    token.remove_prefix(1);
  }
  while (!token.empty() && std::string_view(",.;:)!?\"'").find(token.back()) != std::string_view::npos) {
    token.remove_suffix(1);
  }
  if (token.empty() || !is_letter(token.front()) || !is_letter(token.back())) return false;
  bool previous_was_hyphen = false;
  for (char c : token) {
    if (c == '-') {
      if (previous_was_hyphen) return false;
      previous_was_hyphen = true;
    } else if (is_letter(c)) {
      previous_was_hyphen = false;
    } else {
      return false;
    }
  }
  return true;
}

// Text from the table as one roff text line: backslashes become \e, hyphens
// \- where they are literal, and a leading '.' or '\'' (a control character
// at the start of a line) is guarded with \&.
std::string roff_text(std::string_view text) {
  if (text.find('\n') != std::string_view::npos) {
    throw std::runtime_error("table text spans lines: " + std::string(text));
  }
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t end = std::min(text.find(' ', i), text.size());
    const std::string_view token = text.substr(i, end - i);
    const bool word = is_hyphenated_word(token);
    for (char c : token) {
      if (c == '\\') {
        out += "\\e";
      } else if (c == '-' && !word) {
        out += "\\-";
      } else {
        out += c;
      }
    }
    if (end < text.size()) out += ' ';
    i = end + 1;
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

// The doc lines of the table carry no trailing period; the page's sentences do.
std::string sentence(std::string_view doc) {
  std::string out = roff_text(doc);
  if (!out.empty() && out.back() != '.') out += '.';
  return out;
}

std::string tunable_entries() {
  using namespace mpf::common;
  const Tunables defaults = Tunables::defaults();
  std::ostringstream out;
  for (const TunableSpec& row : kTunableTable) {
    const std::string value = defaults.value_text(row.id);
    out << ".TP\n"
        << "\\fB" << roff_text(row.name) << "\\fR\n"
        << sentence(row.doc) << "\n"
        << ".br\n"
        << "Environment: \\fB" << roff_text(env_name(row)) << "\\fR"
        << (row.standard_env.empty() ? std::string()
                                     : " or the standard's \\fB" + roff_text(std::string(row.standard_env)) + "\\fR")
        << "\n"
        << ".br\n"
        << "Kind: " << roff_text(to_string(row.kind)) << "; values: " << roff_text(allowed_values(row)) << "\n"
        << ".br\n"
        << "Default: " << (value.empty() ? std::string("empty") : "\\fB" + roff_text(value) + "\\fR") << "\n";
  }
  return out.str();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

std::string generate(const std::string& input_path, const std::string& page) {
  std::string out;
  std::size_t placeholders = 0;
  std::istringstream lines(page);
  std::string line;
  while (std::getline(lines, line)) {
    if (line == kTunablesLine) {
      ++placeholders;
      out += tunable_entries();
      continue;
    }
    for (std::size_t at; (at = line.find(kVersionToken)) != std::string::npos;) {
      line.replace(at, kVersionToken.size(), mpf::common::kVersion);
    }
    out += line;
    out += '\n';
  }
  if (placeholders != 1) {
    throw std::runtime_error(input_path + " has " + std::to_string(placeholders) + " lines " +
                             std::string(kTunablesLine) + "; it needs exactly one");
  }
  return out;
}

void write_atomically(const std::string& path, const std::string& contents) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + temporary);
    out << contents;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + temporary);
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: gen_tunables_man INPUT OUTPUT\n");
    return 2;
  }
  try {
    const std::string input = argv[1];
    const std::filesystem::path output = argv[2];
    if (output.has_parent_path()) std::filesystem::create_directories(output.parent_path());
    write_atomically(output.string(), generate(input, read_file(input)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gen_tunables_man: %s\n", e.what());
    return 1;
  }
  return 0;
}
