// Tunables: how the values of the table in common/tunables_table.hpp are parsed,
// resolved from their sources, and shown to people.
//
// Sources, lowest to highest precedence:
//   default      the table's default_value
//   tuning file  JSON: {"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": 3000, ...}};
//                a value is a JSON number (integer, size in bytes), a boolean (boolean)
//                or a string (any kind, read by the text parser). Optionally beside
//                them: "collective_rules" (the coll_rules tunable, an array) and
//                "machine", the machine the values were measured on (see
//                tuning_file_machine below); on another machine the values still apply,
//                and Tunables::warnings() says so.
//   environment  MPF_<NAME> (upper case), e.g. MPF_STOP_GRACE_MS=3000
//   --set        "name=value" strings, from `mpfrun --set`
// The tuning file is the one the `tuning_file` tunable names, itself resolved first
// (default < MPF_TUNING_FILE < --set tuning_file=PATH); it cannot name itself.
//
// Lifetime: mpfrun resolves the table once (Tunables::resolve), prints it for
// --list-params, and hands it to the ranks as JSON (to_json / from_json), so every
// rank of a job runs with the same values (a program started without mpfrun resolves
// its own). Whoever resolves prints the warnings, once per job: mpfrun, or the
// program started without it; the ranks' copies carry none. Values are read at setup
// time; the hot path copies what it needs out of a Tunables, it never looks one up
// per message.
//
// Every mistake a person can make (a typo in a name, a value out of range, a bad
// tuning file) is a TunableError whose message names the tunable, the value, where it
// came from and what is allowed. Asking a tunable for the wrong kind of value (e.g.
// integer() of a text tunable) is a bug in the caller and throws std::logic_error.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/machine.hpp"
#include "common/tunables_table.hpp"

namespace mpf::common {

enum class TunableSource { default_value, tuning_file, environment, command_line };

// The "mpf_tuning_version" this toolkit reads and writes.
inline constexpr int kTuningFileVersion = 1;

// "integer", "size", "boolean", "choice", "text".
std::string_view to_string(TunableKind kind);
// "default", "file", "env", "set": the words of the `source` field of to_json().
std::string_view to_string(TunableSource source);

class TunableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The row of a tunable.
const TunableSpec& spec(Tunable tunable);
// The tunable called `name` (exact, lower-case name), if any.
std::optional<Tunable> find_tunable(std::string_view name);
// "MPF_STOP_GRACE_MS".
std::string env_name(const TunableSpec& spec);
// What a value may be, for people: "an integer in [0, 600000]", "a size in [4KiB, 1GiB]",
// "a boolean (1/0, true/false, yes/no, on/off)", "one of: spin, yield, sleep", "any text".
// Reads after "is not": error messages use it that way.
std::string allowed_values(const TunableSpec& spec);
// Bytes in the largest binary suffix that is exact: 65536 -> "64KiB", 1536 -> "1536".
std::string format_size(std::int64_t bytes);

// A parsed value. integer and size: `number`; boolean: `number` is 0 or 1; choice:
// `text`, and `number` is its index in spec.choices; text: `text`.
struct TunableValue {
  std::int64_t number = 0;
  std::string text;
};

// Parses `text` as a value of `spec`. `where` says where the text came from, for the
// error message: "MPF_STOP_GRACE_MS", "--set", "tuning file /x/t.json".
TunableValue parse_value(const TunableSpec& spec, std::string_view text, std::string_view where);

// The resolved value of every tunable, with where each came from.
class Tunables {
 public:
  // Every tunable at its default (no tuning file is read).
  static Tunables defaults();

  // Resolves every tunable from its sources (see the top of this file). `envp` is a
  // null-terminated "NAME=VALUE" array like `environ` (nullptr: empty); only MPF_*
  // entries are read, and every one must name a tunable: typos are errors, not ignored.
  // If a name appears twice in envp the first wins, as with getenv; in `sets` the last
  // wins. A missing tuning file is an error when it was named explicitly (environment or
  // --set), and skipped silently when it is the default one; an empty tuning_file means
  // no file. A tuning file measured on another machine (its "machine" object against
  // MachineFingerprint::current()) is no error: its values apply and warnings() says
  // so. Throws TunableError.
  static Tunables resolve(const char* const* envp, std::span<const std::string> sets);
  // The same, with `here` standing for this machine (for tests).
  static Tunables resolve(const char* const* envp, std::span<const std::string> sets,
                          const MachineFingerprint& here);

  std::int64_t integer(Tunable tunable) const;     // integer and size
  bool boolean(Tunable tunable) const;             // boolean
  const std::string& text(Tunable tunable) const;  // text and choice
  // The canonical text of any value: "2000", "64KiB", "true", the text itself.
  std::string value_text(Tunable tunable) const;
  TunableSource source(Tunable tunable) const;
  // Where the value came from, for people: "default", "tuning file /path/t.json",
  // "env MPF_STOP_GRACE_MS", "--set". The default tuning file, when missing, is
  // "default (not found, skipped)".
  const std::string& origin(Tunable tunable) const;

  // What resolve() found worth telling, one line each, without a prefix: today at most
  // "tuning file PATH was measured on another machine (...); its values still apply;
  // run mpftune on this machine to tune it". Empty after defaults() and from_json():
  // to_json() does not carry them, so that they are printed once per job.
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Array of {"name", "kind", "value" (JSON number, boolean or string), "source"
  // (to_string(TunableSource)), "origin", "doc"}, in table order.
  nlohmann::json to_json() const;
  // The inverse of to_json(), for the ranks that receive the launcher's table. Every
  // tunable must be present once, with the kind of this build's table; values are
  // parsed again. Throws TunableError.
  static Tunables from_json(const nlohmann::json& table);

  // For `mpfrun --list-params`: one aligned line per tunable under a header,
  // NAME  VALUE  SOURCE (the origin)  DESCRIPTION; an empty text value shows as "".
  std::string table_text() const;

 private:
  struct Slot {
    TunableValue value;
    TunableSource source = TunableSource::default_value;
    std::string origin;
  };

  Tunables() = default;
  // `here`: this machine, or nullptr to read MachineFingerprint::current() when a
  // tuning file names its machine.
  static Tunables resolve_on(const char* const* envp, std::span<const std::string> sets,
                             const MachineFingerprint* here);
  const Slot& slot(Tunable tunable, TunableKind a, TunableKind b, std::string_view wanted) const;

  std::array<Slot, kTunableCount> slots_;
  std::vector<std::string> warnings_;
};

// The "machine" object of a tuning file, as mpftune writes it beside "tunables":
//   {"cpu_model": "...", "cpus": 2, "memory_bytes": 25000000000,         the fingerprint
//    "kernel": "Linux 6.1.0 x86_64", "toolkit_version": "0.1.0",         provenance
//    "date": "2026-11-26T17:00:00Z"}
// `machine` is the fingerprint of the machine measured; the kernel is
// kernel_description(), the toolkit's version kVersion, and `date` the time of the
// measurement (ISO 8601, UTC). resolve() requires the fingerprint's three fields; the
// provenance's are optional strings; any other field is an error.
nlohmann::json tuning_file_machine(const MachineFingerprint& machine, std::string_view date);

// The run directory: the run_dir tunable, or when it is empty $TMPDIR/mpf-<uid>
// ($TMPDIR from this process's environment; /tmp when unset or empty).
std::string resolved_run_dir(const Tunables& tunables);

// --- Compile-time parser --------------------------------------------------------
// The one parser of every value, constexpr so that the table's defaults are checked
// by the compiler (the static_assert below). parse_value() wraps it with messages.
namespace detail {

enum class ParseStatus { ok, empty, malformed, out_of_range };

struct ParseOutcome {
  ParseStatus status = ParseStatus::ok;
  std::int64_t number = 0;  // integer, size, boolean (0/1), choice (index)
};

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

constexpr char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

constexpr bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Digits only, at least one, into *out; false on overflow of uint64 as well.
constexpr ParseStatus parse_digits(std::string_view digits, std::uint64_t& out) {
  if (digits.empty()) return ParseStatus::malformed;
  std::uint64_t value = 0;
  bool overflow = false;
  for (char c : digits) {
    if (!is_digit(c)) return ParseStatus::malformed;
    auto d = static_cast<std::uint64_t>(c - '0');
    // Keep scanning after an overflow: "99999999999999999999x" is malformed, not out of range.
    if (value > (UINT64_MAX - d) / 10) overflow = true;
    value = overflow ? 0 : value * 10 + d;
  }
  out = value;
  return overflow ? ParseStatus::out_of_range : ParseStatus::ok;
}

constexpr ParseOutcome in_range(std::int64_t v, const TunableSpec& spec) {
  if (v < spec.min || v > spec.max) return {ParseStatus::out_of_range, v};
  return {ParseStatus::ok, v};
}

constexpr ParseOutcome parse_integer(std::string_view text, const TunableSpec& spec) {
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  std::uint64_t magnitude = 0;
  ParseStatus status = parse_digits(text, magnitude);
  if (status != ParseStatus::ok) return {status, 0};
  constexpr auto kMaxMagnitude = static_cast<std::uint64_t>(INT64_MAX);
  if (magnitude > kMaxMagnitude + (negative ? 1 : 0)) return {ParseStatus::out_of_range, 0};
  std::int64_t v = negative ? static_cast<std::int64_t>(0 - magnitude)  // two's complement, INT64_MIN included
                            : static_cast<std::int64_t>(magnitude);
  return in_range(v, spec);
}

constexpr ParseOutcome parse_size(std::string_view text, const TunableSpec& spec) {
  std::size_t digits = 0;
  while (digits < text.size() && is_digit(text[digits])) ++digits;
  std::string_view suffix = text.substr(digits);
  int shift = 0;
  if (suffix.empty()) {
    shift = 0;
  } else if (suffix == "k" || suffix == "K" || suffix == "KiB") {
    shift = 10;
  } else if (suffix == "m" || suffix == "M" || suffix == "MiB") {
    shift = 20;
  } else if (suffix == "g" || suffix == "G" || suffix == "GiB") {
    shift = 30;
  } else if (suffix == "t" || suffix == "T" || suffix == "TiB") {
    shift = 40;
  } else {
    return {ParseStatus::malformed, 0};
  }
  std::uint64_t count = 0;
  ParseStatus status = parse_digits(text.substr(0, digits), count);
  if (status != ParseStatus::ok) return {status, 0};
  if (count > (static_cast<std::uint64_t>(INT64_MAX) >> shift)) return {ParseStatus::out_of_range, 0};
  return in_range(static_cast<std::int64_t>(count << shift), spec);
}

constexpr ParseOutcome parse_boolean(std::string_view text) {
  constexpr std::array<std::string_view, 4> kTrue{"1", "true", "yes", "on"};
  constexpr std::array<std::string_view, 4> kFalse{"0", "false", "no", "off"};
  for (std::string_view word : kTrue) {
    if (equals_ignoring_case(text, word)) return {ParseStatus::ok, 1};
  }
  for (std::string_view word : kFalse) {
    if (equals_ignoring_case(text, word)) return {ParseStatus::ok, 0};
  }
  return {ParseStatus::malformed, 0};
}

constexpr ParseOutcome parse_choice(std::string_view text, const TunableSpec& spec) {
  for (std::size_t i = 0; i < spec.choices.size(); ++i) {
    if (text == spec.choices[i]) return {ParseStatus::ok, static_cast<std::int64_t>(i)};
  }
  return {ParseStatus::malformed, 0};
}

constexpr ParseOutcome parse(const TunableSpec& spec, std::string_view text) {
  switch (spec.kind) {
    case TunableKind::integer:
    case TunableKind::size:
    case TunableKind::boolean:
      if (text.empty()) return {ParseStatus::empty, 0};
      if (spec.kind == TunableKind::integer) return parse_integer(text, spec);
      if (spec.kind == TunableKind::size) return parse_size(text, spec);
      return parse_boolean(text);
    case TunableKind::choice:
      return parse_choice(text, spec);
    case TunableKind::text:
      return {ParseStatus::ok, 0};
  }
  return {ParseStatus::malformed, 0};
}

consteval bool defaults_are_valid() {
  for (const TunableSpec& row : kTunableTable) {
    if (row.kind == TunableKind::choice && row.choices.empty()) return false;
    if ((row.kind == TunableKind::integer || row.kind == TunableKind::size) && row.min > row.max) {
      return false;
    }
    if (parse(row, row.default_value).status != ParseStatus::ok) return false;
  }
  return true;
}

}  // namespace detail

static_assert(detail::defaults_are_valid(),
              "kTunableTable: a default does not parse or is out of range, a range is empty, "
              "or a choice tunable has no choices");

}  // namespace mpf::common
