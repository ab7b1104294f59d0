#include "common/tunables.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/system_error.hpp"

namespace mpf::common {

namespace {

using detail::ParseStatus;

constexpr std::string_view kEnvPrefix = "MPF_";
// The tuning file's array of collective rules: the coll_rules tunable.
constexpr std::string_view kRulesKey = "collective_rules";
// The tuning file's object naming the machine it was measured on, and its fields:
// the fingerprint (required), then the provenance (optional strings).
constexpr std::string_view kMachineKey = "machine";
constexpr std::string_view kCpuModelField = "cpu_model";
constexpr std::string_view kCpusField = "cpus";
constexpr std::string_view kMemoryField = "memory_bytes";
constexpr std::string_view kKernelField = "kernel";
constexpr std::string_view kToolkitVersionField = "toolkit_version";
constexpr std::string_view kDateField = "date";
constexpr std::array kProvenanceFields{kKernelField, kToolkitVersionField, kDateField};

std::string lower_case(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = detail::lower(c);
  return out;
}

std::string upper_case(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

std::string in_quotes(std::string_view text) { return "'" + std::string(text) + "'"; }

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The tunables whose name is nearest to `name` (ignoring case), if near enough to
// be a typo: within two edits, or a third of the name (stop_grace -> stop_grace_ms).
std::vector<Tunable> close_names(std::string_view name) {
  std::string wanted = lower_case(name);
  std::vector<Tunable> best;
  std::size_t best_distance = SIZE_MAX;
  for (const TunableSpec& row : kTunableTable) {
    std::size_t d = edit_distance(wanted, row.name);
    if (d > 2 && d * 3 > row.name.size()) continue;
    if (d < best_distance) {
      best.clear();
      best_distance = d;
    }
    if (d == best_distance) best.push_back(row.id);
  }
  return best;
}

// ---- Texts for people ------------------------------------------------------------
// Every message of this file is built here, so that they read as one voice.

std::string did_you_mean(std::string_view name, bool as_env) {
  std::vector<Tunable> near = close_names(name);
  if (near.empty()) return " (mpfrun --list-params lists them)";
  std::string out = "; did you mean ";
  for (std::size_t i = 0; i < near.size(); ++i) {
    if (i > 0) out += " or ";
    out += as_env ? env_name(spec(near[i])) : std::string(spec(near[i]).name);
  }
  return out + "? (mpfrun --list-params lists them)";
}

std::string value_error(const TunableSpec& row, std::string_view text, std::string_view where,
                        ParseStatus status) {
  std::string head = "tunable " + std::string(row.name) + ": ";
  switch (status) {
    case ParseStatus::empty:
      return head + "empty value from " + std::string(where) + "; expected " + allowed_values(row);
    case ParseStatus::out_of_range: {
      bool size = row.kind == TunableKind::size;
      return head + "value " + in_quotes(text) + " from " + std::string(where) + " is out of range [" +
             (size ? format_size(row.min) : std::to_string(row.min)) + ", " +
             (size ? format_size(row.max) : std::to_string(row.max)) + "]";
    }
    case ParseStatus::malformed:
    case ParseStatus::ok:
      break;
  }
  return head + "value " + in_quotes(text) + " from " + std::string(where) + " is not " + allowed_values(row);
}

std::string unknown_set_error(std::string_view name, std::string_view setting) {
  return "unknown tunable " + in_quotes(name) + " in --set " + std::string(setting) + did_you_mean(name, false);
}

std::string bad_set_error(std::string_view setting) {
  return "--set " + std::string(setting) + ": expected NAME=VALUE, e.g. --set stop_grace_ms=5000";
}

std::string unknown_env_error(std::string_view variable) {
  std::string_view name = variable.substr(kEnvPrefix.size());
  return "unknown tunable " + in_quotes(lower_case(name)) + " in environment variable " + std::string(variable) +
         did_you_mean(name, true) + "; unset " + std::string(variable) +
         " if it is not meant for the MPF Toolkit";
}

std::string file_error(std::string_view path, std::string_view what) {
  return "tuning file " + std::string(path) + ": " + std::string(what);
}

std::string file_open_error(std::string_view path, std::string_view named_by, std::string_view call, int err) {
  return "tuning file " + std::string(path) + " (" + std::string(named_by) +
         "): " + system_error_text(std::string(call), err);
}

std::string tuning_file_named_by(TunableSource source) {
  switch (source) {
    case TunableSource::default_value: return "the default";
    case TunableSource::environment: return "named by " + env_name(spec(Tunable::tuning_file));
    case TunableSource::tuning_file:  // a tuning file cannot name one: read_tuning_file() refuses it
    case TunableSource::command_line:
      break;
  }
  return "named by mpfrun --tuning or --set tuning_file";
}

std::string file_unknown_tunable(std::string_view path, std::string_view name) {
  return file_error(path, "unknown tunable " + in_quotes(name) + did_you_mean(name, false));
}

std::string file_shape_error(std::string_view path) {
  return file_error(path, "expected a JSON object {\"mpf_tuning_version\": " + std::to_string(kTuningFileVersion) +
                              ", \"tunables\": {\"name\": value, ...}}");
}

std::string file_self_reference(std::string_view path) {
  return file_error(path, "tunable 'tuning_file' cannot be set in a tuning file; use MPF_TUNING_FILE, "
                          "mpfrun --tuning PATH or --set tuning_file=PATH");
}

std::string file_rules_as_tunable(std::string_view path) {
  return file_error(path, "tunable 'coll_rules' is written as the tuning file's " + std::string(kRulesKey) +
                              " array, beside tunables, not inside it (man 7 mpf, Collective rules)");
}

std::string file_rules_shape_error(std::string_view path, const nlohmann::json& rules) {
  return file_error(path, std::string(kRulesKey) + " is a JSON " + rules.type_name() +
                              "; expected an array of rules (man 7 mpf, Collective rules)");
}

std::string file_unknown_key(std::string_view path, std::string_view key) {
  return file_error(path, "unknown key " + in_quotes(key) +
                              " (expected mpf_tuning_version and tunables, and optionally " + std::string(kRulesKey) +
                              " and " + std::string(kMachineKey) + ")");
}

std::string machine_fields() {
  std::string out = std::string(kCpuModelField) + ", " + std::string(kCpusField) + " and " +
                    std::string(kMemoryField) + ", and optionally ";
  for (std::size_t i = 0; i < kProvenanceFields.size(); ++i) {
    if (i > 0) out += i + 1 == kProvenanceFields.size() ? " and " : ", ";
    out += kProvenanceFields[i];
  }
  return out;
}

std::string file_machine_shape_error(std::string_view path, const nlohmann::json& machine) {
  return file_error(path, std::string(kMachineKey) + " is a JSON " + machine.type_name() +
                              "; expected an object with " + machine_fields() + " (man 7 mpf, The tuning file)");
}

std::string file_machine_missing_field(std::string_view path, std::string_view field) {
  return file_error(path, std::string(kMachineKey) + " has no field " + in_quotes(field) + "; it names " +
                              machine_fields() + " (man 7 mpf, The tuning file)");
}

std::string file_machine_unknown_field(std::string_view path, std::string_view field) {
  return file_error(path, std::string(kMachineKey) + " has an unknown field " + in_quotes(field) + " (expected " +
                              machine_fields() + ")");
}

std::string file_machine_bad_field(std::string_view path, std::string_view field, const nlohmann::json& value,
                                   std::string_view expected) {
  return file_error(path, std::string(kMachineKey) + " field " + in_quotes(field) + " is a JSON " + value.type_name() +
                              " (" + value.dump() + "); expected " + std::string(expected));
}

std::string other_machine_warning(std::string_view path, std::string_view difference) {
  return "tuning file " + std::string(path) + " was measured on another machine (" + std::string(difference) +
         "); its values still apply; run mpftune on this machine to tune it";
}

std::string expected_json_types(const TunableSpec& row) {
  switch (row.kind) {
    case TunableKind::integer:
    case TunableKind::size:
      return "an integer number or a string";
    case TunableKind::boolean:
      return "true, false or a string";
    case TunableKind::choice:
    case TunableKind::text:
      break;
  }
  return "a string";
}

std::string wrong_json_type(std::string_view context, const TunableSpec& row, const nlohmann::json& value) {
  return std::string(context) + ": tunable " + in_quotes(row.name) + " is a JSON " + value.type_name() +
         " (" + value.dump() + "); expected " + expected_json_types(row);
}

std::string table_json_error(std::string_view what) { return "tunables JSON: " + std::string(what); }

std::string wrong_kind(const TunableSpec& row, std::string_view wanted) {
  return "tunable " + std::string(row.name) + " is of kind " + std::string(to_string(row.kind)) + ", not " +
         std::string(wanted);
}

// ---- Reading values ----------------------------------------------------------------

// The text the parser reads for a JSON value of a tuning file or of to_json(); nullopt
// when the JSON type does not suit the tunable's kind.
std::optional<std::string> json_value_text(const TunableSpec& row, const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  bool numeric = row.kind == TunableKind::integer || row.kind == TunableKind::size;
  if (numeric && (value.is_number_integer() || value.is_number_unsigned())) return value.dump();
  if (row.kind == TunableKind::boolean && value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return std::nullopt;
}

// One value to apply: the tunable, its text, and where it came from.
struct Setting {
  Tunable tunable;
  std::string text;
  std::string where;   // for error messages: "MPF_X", "--set", "tuning file /p"
  std::string origin;  // recorded: "env MPF_X", "--set", "tuning file /p"
};

// The tunable whose standard variable (TunableSpec::standard_env) is
// `variable`, if any.
std::optional<Tunable> standard_tunable(std::string_view variable) {
  for (const TunableSpec& row : kTunableTable) {
    if (!row.standard_env.empty() && row.standard_env == variable) return row.id;
  }
  return std::nullopt;
}

// A standard variable's value in our syntax. OpenSHMEM writes sizes as a
// number that may have a fraction and a suffix K, M, G or T ("1.5G"), and
// turns a switch on by setting the variable to any value ("Any"): a word
// that is not a boolean one, the empty one included, then means on.
std::string standard_value(const TunableSpec& row, std::string_view text) {
  if (row.kind == TunableKind::boolean) {
    return detail::parse_boolean(text).status == ParseStatus::ok ? std::string(text) : std::string("1");
  }
  if (row.kind != TunableKind::size) return std::string(text);
  const std::size_t point = text.find('.');
  if (point == std::string_view::npos) return std::string(text);
  std::size_t end = point + 1;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
  const std::string_view suffix = text.substr(end);
  int shift = 0;
  if (suffix == "K" || suffix == "k") shift = 10;
  if (suffix == "M" || suffix == "m") shift = 20;
  if (suffix == "G" || suffix == "g") shift = 30;
  if (suffix == "T" || suffix == "t") shift = 40;
  // Malformed: left as it is, for the parser to say so.
  if (point == 0 || end == point + 1 || (shift == 0 && !suffix.empty())) return std::string(text);
  const double bytes = std::strtod(std::string(text.substr(0, end)).c_str(), nullptr) *
                       static_cast<double>(std::uint64_t{1} << shift);
  if (!(bytes < 9.0e18)) return std::string(text);
  return std::to_string(static_cast<std::uint64_t>(bytes));
}

std::vector<Setting> environment_settings(const char* const* envp) {
  std::vector<Setting> out;
  std::array<bool, kTunableCount> seen{};
  std::vector<Setting> standard;  // applied after the MPF_ variables, where those did not set the tunable
  for (const char* const* entry = envp; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;  // not a variable definition
    std::string_view variable = text.substr(0, equals);
    if (!text.starts_with(kEnvPrefix)) {
      if (std::optional<Tunable> tunable = standard_tunable(variable)) {
        standard.push_back({*tunable, standard_value(spec(*tunable), text.substr(equals + 1)), std::string(variable),
                            "env " + std::string(variable)});
      }
      continue;
    }
    std::optional<Tunable> tunable = find_tunable(lower_case(variable.substr(kEnvPrefix.size())));
    if (!tunable || env_name(spec(*tunable)) != variable) throw TunableError(unknown_env_error(variable));
    auto index = static_cast<std::size_t>(*tunable);
    if (seen[index]) continue;
    seen[index] = true;
    out.push_back({*tunable, std::string(text.substr(equals + 1)), std::string(variable), "env " + std::string(variable)});
  }
  for (Setting& s : standard) {
    auto index = static_cast<std::size_t>(s.tunable);
    if (seen[index]) continue;
    seen[index] = true;
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Setting> command_line_settings(std::span<const std::string> sets) {
  std::vector<Setting> out;
  for (const std::string& setting : sets) {
    std::size_t equals = setting.find('=');
    if (equals == std::string::npos || equals == 0) throw TunableError(bad_set_error(setting));
    std::string_view name = std::string_view(setting).substr(0, equals);
    std::optional<Tunable> tunable = find_tunable(name);
    if (!tunable) throw TunableError(unknown_set_error(name, setting));
    out.push_back({*tunable, setting.substr(equals + 1), "--set", "--set"});
  }
  return out;
}

// The contents of the file, or nullopt when it does not exist and `missing_ok`.
std::optional<std::string> read_whole_file(const std::string& path, bool missing_ok, std::string_view named_by) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    int err = errno;
    if (err == ENOENT && missing_ok) return std::nullopt;
    throw TunableError(file_open_error(path, named_by, "open", err));
  }
  std::string contents;
  char buffer[4096];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) contents.append(buffer, got);
  if (std::ferror(file.get())) throw TunableError(file_open_error(path, named_by, "read", errno));
  return contents;
}

// The integer of a field of the tuning file's machine object, in [min, max].
std::int64_t machine_integer(const std::string& path, const nlohmann::json& machine, std::string_view field,
                             std::int64_t min, std::int64_t max, std::string_view expected) {
  const nlohmann::json& value = machine.at(std::string(field));
  const bool fits = value.is_number_integer() &&
                    !(value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(max));
  if (!fits || value.get<std::int64_t>() < min || value.get<std::int64_t>() > max) {
    throw TunableError(file_machine_bad_field(path, field, value, expected));
  }
  return value.get<std::int64_t>();
}

// The fingerprint in the tuning file's machine object; its provenance is checked only.
MachineFingerprint machine_of_file(const std::string& path, const nlohmann::json& machine) {
  if (!machine.is_object()) throw TunableError(file_machine_shape_error(path, machine));
  for (const auto& [field, value] : machine.items()) {
    const bool provenance =
        std::find(kProvenanceFields.begin(), kProvenanceFields.end(), field) != kProvenanceFields.end();
    if (field != kCpuModelField && field != kCpusField && field != kMemoryField && !provenance) {
      throw TunableError(file_machine_unknown_field(path, field));
    }
    if (provenance && !value.is_string()) throw TunableError(file_machine_bad_field(path, field, value, "a string"));
  }
  for (std::string_view field : {kCpuModelField, kCpusField, kMemoryField}) {
    if (!machine.contains(field)) throw TunableError(file_machine_missing_field(path, field));
  }
  MachineFingerprint out;
  const nlohmann::json& model = machine.at(std::string(kCpuModelField));
  if (!model.is_string()) throw TunableError(file_machine_bad_field(path, kCpuModelField, model, "a string"));
  out.cpu_model = model.get<std::string>();
  out.cpus = static_cast<int>(machine_integer(path, machine, kCpusField, 1, INT_MAX, "an integer of at least 1"));
  out.memory_bytes = machine_integer(path, machine, kMemoryField, 0, INT64_MAX, "an integer of at least 0");
  return out;
}

// What a tuning file holds: its settings, and the machine it was measured on if it says.
struct TuningFile {
  std::vector<Setting> settings;
  std::optional<MachineFingerprint> machine;
};

TuningFile read_tuning_file(const std::string& path, const std::string& contents) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(contents);
  } catch (const nlohmann::json::parse_error& e) {
    throw TunableError(file_error(path, std::string("not valid JSON: ") + e.what()));
  }
  if (!document.is_object()) throw TunableError(file_shape_error(path));
  for (const auto& [key, value] : document.items()) {
    if (key != "mpf_tuning_version" && key != "tunables" && key != kRulesKey && key != kMachineKey) {
      throw TunableError(file_unknown_key(path, key));
    }
  }
  if (!document.contains("mpf_tuning_version") || !document.contains("tunables")) {
    throw TunableError(file_shape_error(path));
  }
  const nlohmann::json& version = document["mpf_tuning_version"];
  if (!version.is_number_integer() || version.get<std::int64_t>() != kTuningFileVersion) {
    throw TunableError(file_error(path, "mpf_tuning_version is " + version.dump() + "; this MPF Toolkit reads version " +
                                            std::to_string(kTuningFileVersion)));
  }
  const nlohmann::json& tunables = document["tunables"];
  if (!tunables.is_object()) throw TunableError(file_shape_error(path));

  TuningFile out;
  const std::string where = "tuning file " + path;
  for (const auto& [name, value] : tunables.items()) {
    std::optional<Tunable> tunable = find_tunable(name);
    if (!tunable) throw TunableError(file_unknown_tunable(path, name));
    if (*tunable == Tunable::tuning_file) throw TunableError(file_self_reference(path));
    if (*tunable == Tunable::coll_rules) throw TunableError(file_rules_as_tunable(path));
    std::optional<std::string> text = json_value_text(spec(*tunable), value);
    if (!text) throw TunableError(wrong_json_type(where, spec(*tunable), value));
    out.settings.push_back({*tunable, std::move(*text), where, where});
  }
  // The rules are checked where they are read (coll::rules_from): this
  // layer knows no collective algorithms.
  if (document.contains(kRulesKey)) {
    const nlohmann::json& rules = document[kRulesKey];
    if (!rules.is_array()) throw TunableError(file_rules_shape_error(path, rules));
    out.settings.push_back({Tunable::coll_rules, rules.dump(), where, where});
  }
  if (document.contains(kMachineKey)) out.machine = machine_of_file(path, document[kMachineKey]);
  return out;
}

}  // namespace

// ---- Names and texts -----------------------------------------------------------------

std::string_view to_string(TunableKind kind) {
  switch (kind) {
    case TunableKind::integer: return "integer";
    case TunableKind::size: return "size";
    case TunableKind::boolean: return "boolean";
    case TunableKind::choice: return "choice";
    case TunableKind::text: return "text";
  }
  return "unknown";
}

std::string_view to_string(TunableSource source) {
  switch (source) {
    case TunableSource::default_value: return "default";
    case TunableSource::tuning_file: return "file";
    case TunableSource::environment: return "env";
    case TunableSource::command_line: return "set";
  }
  return "unknown";
}

const TunableSpec& spec(Tunable tunable) {
  auto index = static_cast<std::size_t>(tunable);
  if (index >= kTunableCount) {
    throw std::logic_error("Tunable " + std::to_string(index) + " names no row of kTunableTable");
  }
  return kTunableTable[index];
}

std::optional<Tunable> find_tunable(std::string_view name) {
  for (const TunableSpec& row : kTunableTable) {
    if (row.name == name) return row.id;
  }
  return std::nullopt;
}

std::string env_name(const TunableSpec& row) { return std::string(kEnvPrefix) + upper_case(row.name); }

std::string allowed_values(const TunableSpec& row) {
  switch (row.kind) {
    case TunableKind::integer:
      return "an integer in [" + std::to_string(row.min) + ", " + std::to_string(row.max) + "]";
    case TunableKind::size:
      return "a size in [" + format_size(row.min) + ", " + format_size(row.max) +
             "] (bytes, or with suffix K/KiB, M/MiB, G/GiB, T/TiB)";
    case TunableKind::boolean:
      return "a boolean (1/0, true/false, yes/no, on/off)";
    case TunableKind::choice: {
      std::string out = "one of: ";
      for (std::size_t i = 0; i < row.choices.size(); ++i) {
        if (i > 0) out += ", ";
        out += row.choices[i];
      }
      return out;
    }
    case TunableKind::text:
      break;
  }
  return "any text";
}

std::string format_size(std::int64_t bytes) {
  constexpr std::array<std::pair<int, std::string_view>, 4> kSuffixes{
      {{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}}};
  if (bytes > 0) {
    for (const auto& [shift, suffix] : kSuffixes) {
      std::int64_t unit = std::int64_t{1} << shift;
      if (bytes % unit == 0) return std::to_string(bytes / unit) + std::string(suffix);
    }
  }
  return std::to_string(bytes);
}

TunableValue parse_value(const TunableSpec& row, std::string_view text, std::string_view where) {
  detail::ParseOutcome outcome = detail::parse(row, text);
  if (outcome.status != ParseStatus::ok) throw TunableError(value_error(row, text, where, outcome.status));
  TunableValue value;
  value.number = outcome.number;
  if (row.kind == TunableKind::text || row.kind == TunableKind::choice) value.text = text;
  return value;
}

// ---- Tunables ------------------------------------------------------------------------

Tunables Tunables::defaults() {
  Tunables out;
  for (const TunableSpec& row : kTunableTable) {
    Slot& slot = out.slots_[static_cast<std::size_t>(row.id)];
    slot.value = parse_value(row, row.default_value, "the default");
    slot.source = TunableSource::default_value;
    slot.origin = "default";
  }
  return out;
}

Tunables Tunables::resolve(const char* const* envp, std::span<const std::string> sets) {
  return resolve_on(envp, sets, nullptr);
}

Tunables Tunables::resolve(const char* const* envp, std::span<const std::string> sets,
                           const MachineFingerprint& here) {
  return resolve_on(envp, sets, &here);
}

Tunables Tunables::resolve_on(const char* const* envp, std::span<const std::string> sets,
                              const MachineFingerprint* here) {
  // Names first: a typo in the environment or on the command line is reported as such,
  // before any file is read.
  std::vector<Setting> environment = environment_settings(envp);
  std::vector<Setting> command_line = command_line_settings(sets);

  Tunables out = defaults();
  auto apply = [&out](const Setting& setting, TunableSource source) {
    Slot& slot = out.slots_[static_cast<std::size_t>(setting.tunable)];
    slot.value = parse_value(spec(setting.tunable), setting.text, setting.where);
    slot.source = source;
    slot.origin = setting.origin;
  };

  // The tuning file's own path: default < MPF_TUNING_FILE < --set tuning_file=PATH.
  for (const Setting& s : environment) {
    if (s.tunable == Tunable::tuning_file) apply(s, TunableSource::environment);
  }
  for (const Setting& s : command_line) {
    if (s.tunable == Tunable::tuning_file) apply(s, TunableSource::command_line);
  }
  Slot& file_slot = out.slots_[static_cast<std::size_t>(Tunable::tuning_file)];
  const std::string path = file_slot.value.text;
  if (!path.empty()) {
    bool is_default = file_slot.source == TunableSource::default_value;
    std::optional<std::string> contents = read_whole_file(path, is_default, tuning_file_named_by(file_slot.source));
    if (contents) {
      const TuningFile file = read_tuning_file(path, *contents);
      for (const Setting& s : file.settings) apply(s, TunableSource::tuning_file);
      if (file.machine) {
        const std::string difference = machine_difference(*file.machine, here ? *here : MachineFingerprint::current());
        if (!difference.empty()) out.warnings_.push_back(other_machine_warning(path, difference));
      }
    } else {
      file_slot.origin = "default (not found, skipped)";
    }
  }

  for (const Setting& s : environment) apply(s, TunableSource::environment);
  for (const Setting& s : command_line) apply(s, TunableSource::command_line);
  return out;
}

const Tunables::Slot& Tunables::slot(Tunable tunable, TunableKind a, TunableKind b, std::string_view wanted) const {
  const TunableSpec& row = spec(tunable);
  if (row.kind != a && row.kind != b) throw std::logic_error(wrong_kind(row, wanted));
  return slots_[static_cast<std::size_t>(tunable)];
}

std::int64_t Tunables::integer(Tunable tunable) const {
  return slot(tunable, TunableKind::integer, TunableKind::size, "integer or size").value.number;
}

bool Tunables::boolean(Tunable tunable) const {
  return slot(tunable, TunableKind::boolean, TunableKind::boolean, "boolean").value.number != 0;
}

const std::string& Tunables::text(Tunable tunable) const {
  return slot(tunable, TunableKind::text, TunableKind::choice, "text or choice").value.text;
}

std::string Tunables::value_text(Tunable tunable) const {
  const TunableSpec& row = spec(tunable);
  const TunableValue& value = slots_[static_cast<std::size_t>(tunable)].value;
  switch (row.kind) {
    case TunableKind::integer: return std::to_string(value.number);
    case TunableKind::size: return format_size(value.number);
    case TunableKind::boolean: return value.number != 0 ? "true" : "false";
    case TunableKind::choice:
    case TunableKind::text:
      break;
  }
  return value.text;
}

TunableSource Tunables::source(Tunable tunable) const {
  spec(tunable);  // range check
  return slots_[static_cast<std::size_t>(tunable)].source;
}

const std::string& Tunables::origin(Tunable tunable) const {
  spec(tunable);  // range check
  return slots_[static_cast<std::size_t>(tunable)].origin;
}

nlohmann::json Tunables::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const TunableSpec& row : kTunableTable) {
    const Slot& slot = slots_[static_cast<std::size_t>(row.id)];
    nlohmann::json value;
    switch (row.kind) {
      case TunableKind::integer:
      case TunableKind::size:
        value = slot.value.number;
        break;
      case TunableKind::boolean:
        value = slot.value.number != 0;
        break;
      case TunableKind::choice:
      case TunableKind::text:
        value = slot.value.text;
        break;
    }
    out.push_back({{"name", row.name},
                   {"kind", to_string(row.kind)},
                   {"value", std::move(value)},
                   {"source", to_string(slot.source)},
                   {"origin", slot.origin},
                   {"doc", row.doc}});
  }
  return out;
}

Tunables Tunables::from_json(const nlohmann::json& table) {
  if (!table.is_array()) {
    throw TunableError(table_json_error(std::string("expected an array of tunables, got a JSON ") + table.type_name()));
  }
  Tunables out;
  std::array<bool, kTunableCount> seen{};
  for (const nlohmann::json& entry : table) {
    auto has_string = [&entry](const char* key) { return entry.contains(key) && entry[key].is_string(); };
    if (!entry.is_object() || !has_string("name") || !has_string("kind") || !entry.contains("value") ||
        !has_string("source") || !has_string("origin")) {
      throw TunableError(table_json_error("entry " + entry.dump() +
                                          " is not an object with string name, kind, source, origin and a value"));
    }
    const std::string name = entry["name"].get<std::string>();
    std::optional<Tunable> tunable = find_tunable(name);
    if (!tunable) throw TunableError(table_json_error("unknown tunable " + in_quotes(name) + did_you_mean(name, false)));
    const TunableSpec& row = spec(*tunable);
    if (entry["kind"].get<std::string>() != to_string(row.kind)) {
      throw TunableError(table_json_error("tunable " + in_quotes(name) + " is of kind " + entry["kind"].dump() +
                                          "; this build declares it " + std::string(to_string(row.kind))));
    }
    auto index = static_cast<std::size_t>(*tunable);
    if (seen[index]) throw TunableError(table_json_error("tunable " + in_quotes(name) + " appears twice"));
    seen[index] = true;

    std::optional<std::string> text = json_value_text(row, entry["value"]);
    if (!text) throw TunableError(wrong_json_type("tunables JSON", row, entry["value"]));
    Slot& slot = out.slots_[index];
    slot.value = parse_value(row, *text, "tunables JSON");

    const std::string source = entry["source"].get<std::string>();
    constexpr std::array kSources{TunableSource::default_value, TunableSource::tuning_file,
                                  TunableSource::environment, TunableSource::command_line};
    auto known = std::find_if(kSources.begin(), kSources.end(),
                              [&source](TunableSource s) { return to_string(s) == source; });
    if (known == kSources.end()) {
      throw TunableError(table_json_error("tunable " + in_quotes(name) + " has source " + in_quotes(source) +
                                          "; expected default, file, env or set"));
    }
    slot.source = *known;
    slot.origin = entry["origin"].get<std::string>();
  }
  for (const TunableSpec& row : kTunableTable) {
    if (!seen[static_cast<std::size_t>(row.id)]) {
      throw TunableError(table_json_error("tunable " + in_quotes(row.name) + " is missing"));
    }
  }
  return out;
}

std::string Tunables::table_text() const {
  struct Line {
    std::string name, value, source, doc;
  };
  std::vector<Line> lines{{"NAME", "VALUE", "SOURCE", "DESCRIPTION"}};
  for (const TunableSpec& row : kTunableTable) {
    std::string value = value_text(row.id);
    if (value.empty()) value = "\"\"";
    lines.push_back({std::string(row.name), std::move(value), origin(row.id), std::string(row.doc)});
  }
  std::size_t name_width = 0, value_width = 0, source_width = 0;
  for (const Line& line : lines) {
    name_width = std::max(name_width, line.name.size());
    value_width = std::max(value_width, line.value.size());
    source_width = std::max(source_width, line.source.size());
  }
  auto padded = [](const std::string& text, std::size_t width) { return text + std::string(width - text.size() + 2, ' '); };
  std::string out;
  for (const Line& line : lines) {
    out += padded(line.name, name_width) + padded(line.value, value_width) + padded(line.source, source_width) +
           line.doc + "\n";
  }
  return out;
}

nlohmann::json tuning_file_machine(const MachineFingerprint& machine, std::string_view date) {
  nlohmann::json out = nlohmann::json::object();
  out[std::string(kCpuModelField)] = machine.cpu_model;
  out[std::string(kCpusField)] = machine.cpus;
  out[std::string(kMemoryField)] = machine.memory_bytes;
  out[std::string(kKernelField)] = kernel_description();
  out[std::string(kToolkitVersionField)] = std::string(kVersion);
  out[std::string(kDateField)] = std::string(date);
  return out;
}

std::string resolved_run_dir(const Tunables& tunables) {
  const std::string& configured = tunables.text(Tunable::run_dir);
  if (!configured.empty()) return configured;
  const char* tmpdir = std::getenv("TMPDIR");
  std::string base = (tmpdir != nullptr && *tmpdir != '\0') ? tmpdir : "/tmp";
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return base + "/mpf-" + std::to_string(::getuid());
}

}  // namespace mpf::common
