// Unit tests of the tunables table and its mechanism (lib/common/tunables*.hpp).
#include "common/tunables.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace mpf::common {
namespace {

using ::testing::HasSubstr;

// Specs of every kind, independent of what the real table holds today. The id is
// irrelevant to parsing.
constexpr std::array<std::string_view, 3> kPolicies{"spin", "yield", "sleep"};
constexpr TunableSpec kIntegerSpec{.id = Tunable::stop_grace_ms, .name = "t_int", .kind = TunableKind::integer,
                                   .default_value = "0", .min = -10, .max = 600000, .doc = "test"};
constexpr TunableSpec kSizeSpec{.id = Tunable::stop_grace_ms, .name = "t_size", .kind = TunableKind::size,
                                .default_value = "4K", .min = 0, .max = std::int64_t{1} << 30, .doc = "test"};
constexpr TunableSpec kBooleanSpec{.id = Tunable::stop_grace_ms, .name = "t_bool", .kind = TunableKind::boolean,
                                   .default_value = "off", .doc = "test"};
constexpr TunableSpec kChoiceSpec{.id = Tunable::stop_grace_ms, .name = "t_choice", .kind = TunableKind::choice,
                                  .default_value = "spin", .choices = kPolicies, .doc = "test"};
constexpr TunableSpec kTextSpec{.id = Tunable::stop_grace_ms, .name = "t_text", .kind = TunableKind::text,
                                .default_value = "", .doc = "test"};
constexpr TunableSpec kWideSpec{.id = Tunable::stop_grace_ms, .name = "t_wide", .kind = TunableKind::integer,
                                .default_value = "0", .min = INT64_MIN, .max = INT64_MAX, .doc = "test"};

// The message of the TunableError that parse_value throws, or "" when it accepts.
std::string parse_error(const TunableSpec& spec, std::string_view text) {
  try {
    parse_value(spec, text, "--set");
  } catch (const TunableError& e) {
    return e.what();
  }
  return "";
}

std::int64_t number(const TunableSpec& spec, std::string_view text) {
  return parse_value(spec, text, "--set").number;
}

// An environment in the shape of `environ`.
class Environment {
 public:
  Environment(std::initializer_list<std::string> entries) : entries_(entries) {
    for (const std::string& e : entries_) pointers_.push_back(e.c_str());
    pointers_.push_back(nullptr);
  }
  const char* const* envp() const { return pointers_.data(); }

 private:
  std::vector<std::string> entries_;
  std::vector<const char*> pointers_;
};

std::string resolve_error(const Environment& env, const std::vector<std::string>& sets) {
  try {
    Tunables::resolve(env.envp(), sets);
  } catch (const TunableError& e) {
    return e.what();
  }
  return "";
}

// ---- The table ----------------------------------------------------------------------

TEST(TunablesTable, EveryRowIsWellFormed) {
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < kTunableTable.size(); ++i) {
    const TunableSpec& row = kTunableTable[i];
    SCOPED_TRACE(std::string(row.name));
    EXPECT_EQ(static_cast<std::size_t>(row.id), i);
    EXPECT_EQ(&spec(row.id), &row);

    ASSERT_FALSE(row.name.empty());
    EXPECT_TRUE(row.name.front() >= 'a' && row.name.front() <= 'z') << "starts with a lower-case letter";
    EXPECT_NE(row.name.back(), '_');
    EXPECT_EQ(row.name.find("__"), std::string_view::npos);
    for (char c : row.name) {
      EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << "bad character '" << c << "'";
    }
    EXPECT_TRUE(names.insert(row.name).second) << "name declared twice";

    EXPECT_FALSE(row.doc.empty()) << "every tunable needs a doc line";
    EXPECT_EQ(row.doc.find('\n'), std::string_view::npos) << "the doc is one line";
    EXPECT_NE(row.doc.back(), '.') << "doc lines have no trailing period";

    EXPECT_NO_THROW(parse_value(row, row.default_value, "the default"));
    if (row.kind == TunableKind::integer || row.kind == TunableKind::size) {
      EXPECT_LE(row.min, row.max);
    }
    if (row.kind == TunableKind::choice) {
      EXPECT_FALSE(row.choices.empty());
    }
    EXPECT_EQ(find_tunable(row.name), row.id);
  }
  EXPECT_EQ(names.size(), kTunableCount);
}

TEST(TunablesTable, Names) {
  EXPECT_EQ(env_name(spec(Tunable::stop_grace_ms)), "MPF_STOP_GRACE_MS");
  EXPECT_EQ(find_tunable("STOP_GRACE_MS"), std::nullopt);
  EXPECT_EQ(find_tunable("nonsense"), std::nullopt);
  EXPECT_THROW(spec(Tunable::count), std::logic_error);
  EXPECT_EQ(to_string(TunableSource::default_value), "default");
  EXPECT_EQ(to_string(TunableSource::tuning_file), "file");
  EXPECT_EQ(to_string(TunableSource::environment), "env");
  EXPECT_EQ(to_string(TunableSource::command_line), "set");
  EXPECT_EQ(to_string(TunableKind::size), "size");
}

TEST(TunablesTable, DefaultTuningFileIsInTheInstallDataDir) {
  EXPECT_EQ(std::string(kDefaultTuningFile), std::string(kInstallDataDir) + "/tuning.json");
  EXPECT_EQ(spec(Tunable::tuning_file).default_value, kDefaultTuningFile);
  EXPECT_EQ(Tunables::defaults().text(Tunable::tuning_file), kDefaultTuningFile);
}

TEST(TunablesTable, Defaults) {
  Tunables t = Tunables::defaults();
  EXPECT_EQ(t.integer(Tunable::stop_grace_ms), 2000);
  EXPECT_EQ(t.text(Tunable::run_dir), "");
  for (const TunableSpec& row : kTunableTable) {
    EXPECT_EQ(t.source(row.id), TunableSource::default_value);
    EXPECT_EQ(t.origin(row.id), "default");
  }
}

TEST(TunablesTable, AccessorOfTheWrongKindIsABug) {
  Tunables t = Tunables::defaults();
  EXPECT_THROW(t.integer(Tunable::run_dir), std::logic_error);
  EXPECT_THROW(t.boolean(Tunable::stop_grace_ms), std::logic_error);
  EXPECT_THROW(t.text(Tunable::stop_grace_ms), std::logic_error);
}

// ---- Parsers ------------------------------------------------------------------------

TEST(TunablesParse, Integer) {
  EXPECT_EQ(number(kIntegerSpec, "0"), 0);
  EXPECT_EQ(number(kIntegerSpec, "600000"), 600000);
  EXPECT_EQ(number(kIntegerSpec, "+42"), 42);
  EXPECT_EQ(number(kIntegerSpec, "-10"), -10);
  EXPECT_EQ(number(kIntegerSpec, "007"), 7);
  EXPECT_EQ(number(kWideSpec, "-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(number(kWideSpec, "9223372036854775807"), INT64_MAX);

  EXPECT_EQ(parse_error(kIntegerSpec, "-11"), "tunable t_int: value '-11' from --set is out of range [-10, 600000]");
  EXPECT_EQ(parse_error(kIntegerSpec, "600001"),
            "tunable t_int: value '600001' from --set is out of range [-10, 600000]");
  EXPECT_EQ(parse_error(kIntegerSpec, "abc"),
            "tunable t_int: value 'abc' from --set is not an integer in [-10, 600000]");
  EXPECT_EQ(parse_error(kIntegerSpec, ""), "tunable t_int: empty value from --set; expected an integer in [-10, 600000]");
  for (const char* bad : {" ", " 5", "5 ", "5x", "-", "+", "1.5", "1e3", "0x10", "--1", "5K"}) {
    EXPECT_THAT(parse_error(kIntegerSpec, bad), HasSubstr("is not an integer in [-10, 600000]")) << bad;
  }
  // Overflow is out of range, never a wrapped value.
  EXPECT_THAT(parse_error(kWideSpec, "9223372036854775808"), HasSubstr("is out of range"));
  EXPECT_THAT(parse_error(kWideSpec, "-9223372036854775809"), HasSubstr("is out of range"));
  EXPECT_THAT(parse_error(kWideSpec, "99999999999999999999999"), HasSubstr("is out of range"));
  EXPECT_THAT(parse_error(kWideSpec, "99999999999999999999999x"), HasSubstr("is not an integer"));
}

TEST(TunablesParse, Size) {
  EXPECT_EQ(number(kSizeSpec, "0"), 0);
  EXPECT_EQ(number(kSizeSpec, "123"), 123);
  EXPECT_EQ(number(kSizeSpec, "64k"), 64 << 10);
  EXPECT_EQ(number(kSizeSpec, "64K"), 64 << 10);
  EXPECT_EQ(number(kSizeSpec, "64KiB"), 64 << 10);
  EXPECT_EQ(number(kSizeSpec, "2m"), 2 << 20);
  EXPECT_EQ(number(kSizeSpec, "2M"), 2 << 20);
  EXPECT_EQ(number(kSizeSpec, "2MiB"), 2 << 20);
  EXPECT_EQ(number(kSizeSpec, "1g"), 1 << 30);
  EXPECT_EQ(number(kSizeSpec, "1G"), 1 << 30);
  EXPECT_EQ(number(kSizeSpec, "1GiB"), 1 << 30);

  EXPECT_EQ(parse_error(kSizeSpec, "2G"), "tunable t_size: value '2G' from --set is out of range [0, 1GiB]");
  EXPECT_EQ(parse_error(kSizeSpec, "1073741825"),
            "tunable t_size: value '1073741825' from --set is out of range [0, 1GiB]");
  EXPECT_THAT(parse_error(kSizeSpec, "99999999999G"), HasSubstr("is out of range [0, 1GiB]"));
  EXPECT_THAT(parse_error(kSizeSpec, "99999999999999999999999"), HasSubstr("is out of range [0, 1GiB]"));
  EXPECT_EQ(parse_error(kSizeSpec, "-1"),
            "tunable t_size: value '-1' from --set is not a size in [0, 1GiB] (bytes, or with suffix K/KiB, "
            "M/MiB, G/GiB, T/TiB)");
  EXPECT_EQ(parse_error(kSizeSpec, "1T"), "tunable t_size: value '1T' from --set is out of range [0, 1GiB]");
  EXPECT_THAT(parse_error(kSizeSpec, ""), HasSubstr("tunable t_size: empty value from --set; expected a size"));
  for (const char* bad : {" ", "K", "KiB", "1.5K", "1KB", "1kib", "1 K", "1P", "+1", "1Ki", " 1K", "1K "}) {
    EXPECT_THAT(parse_error(kSizeSpec, bad), HasSubstr("is not a size in [0, 1GiB]")) << bad;
  }
}

TEST(TunablesParse, SizeIsPrintedInItsLargestExactSuffix) {
  EXPECT_EQ(format_size(0), "0");
  EXPECT_EQ(format_size(1000), "1000");
  EXPECT_EQ(format_size(1536), "1536");
  EXPECT_EQ(format_size(65536), "64KiB");
  EXPECT_EQ(format_size(3 << 20), "3MiB");
  EXPECT_EQ(format_size((std::int64_t{1} << 30) + (1 << 20)), "1025MiB");
  EXPECT_EQ(format_size(std::int64_t{8} << 30), "8GiB");
  for (std::int64_t bytes : {std::int64_t{0}, std::int64_t{1536}, std::int64_t{1} << 20, std::int64_t{5} << 30}) {
    TunableSpec unbounded = kSizeSpec;
    unbounded.max = INT64_MAX;
    EXPECT_EQ(number(unbounded, format_size(bytes)), bytes);
  }
}

TEST(TunablesParse, Boolean) {
  for (const char* yes : {"1", "true", "TRUE", "True", "yes", "Yes", "on", "oN"}) {
    EXPECT_EQ(number(kBooleanSpec, yes), 1) << yes;
  }
  for (const char* no : {"0", "false", "FALSE", "no", "NO", "off", "Off"}) {
    EXPECT_EQ(number(kBooleanSpec, no), 0) << no;
  }
  EXPECT_EQ(parse_error(kBooleanSpec, "2"),
            "tunable t_bool: value '2' from --set is not a boolean (1/0, true/false, yes/no, on/off)");
  EXPECT_THAT(parse_error(kBooleanSpec, ""), HasSubstr("empty value"));
  for (const char* bad : {" ", "tru", "y", "n", " yes", "yes ", "enable", "10"}) {
    EXPECT_THAT(parse_error(kBooleanSpec, bad), HasSubstr("is not a boolean")) << bad;
  }
}

TEST(TunablesParse, Choice) {
  TunableValue v = parse_value(kChoiceSpec, "yield", "--set");
  EXPECT_EQ(v.text, "yield");
  EXPECT_EQ(v.number, 1);
  EXPECT_EQ(parse_error(kChoiceSpec, "Spin"),
            "tunable t_choice: value 'Spin' from --set is not one of: spin, yield, sleep");
  EXPECT_THAT(parse_error(kChoiceSpec, ""), HasSubstr("is not one of: spin, yield, sleep"));
  EXPECT_THAT(parse_error(kChoiceSpec, "spin "), HasSubstr("is not one of"));
}

TEST(TunablesParse, TextTakesAnything) {
  for (const char* text : {"", " ", "/a path/with spaces", "=x=", "ünïcode"}) {
    EXPECT_EQ(parse_value(kTextSpec, text, "--set").text, text);
  }
}

TEST(TunablesParse, AllowedValues) {
  EXPECT_EQ(allowed_values(kIntegerSpec), "an integer in [-10, 600000]");
  EXPECT_EQ(allowed_values(kChoiceSpec), "one of: spin, yield, sleep");
  EXPECT_EQ(allowed_values(kTextSpec), "any text");
}

// ---- Resolution ---------------------------------------------------------------------

class TunablesFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "mpf-tunables-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern;
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // Writes `contents` to a file of the temporary directory and returns its path.
  std::string write(const std::string& name, const std::string& contents) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << contents;
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(TunablesFiles, PrecedenceIsDefaultFileEnvironmentSet) {
  std::string file = write("t.json", R"({"mpf_tuning_version": 1,
                                          "tunables": {"stop_grace_ms": 3000, "run_dir": "/from/file"}})");
  const std::vector<std::string> no_sets;

  // The file only.
  Tunables t = Tunables::resolve(Environment{"MPF_TUNING_FILE=" + file}.envp(), no_sets);
  EXPECT_EQ(t.integer(Tunable::stop_grace_ms), 3000);
  EXPECT_EQ(t.source(Tunable::stop_grace_ms), TunableSource::tuning_file);
  EXPECT_EQ(t.origin(Tunable::stop_grace_ms), "tuning file " + file);
  EXPECT_EQ(t.text(Tunable::run_dir), "/from/file");
  EXPECT_EQ(t.text(Tunable::tuning_file), file);
  EXPECT_EQ(t.source(Tunable::tuning_file), TunableSource::environment);
  EXPECT_EQ(t.origin(Tunable::tuning_file), "env MPF_TUNING_FILE");

  // The environment beats the file.
  Environment env{"PATH=/usr/bin", "MPF_TUNING_FILE=" + file, "MPF_STOP_GRACE_MS=4000", "MPFOO=ignored"};
  t = Tunables::resolve(env.envp(), no_sets);
  EXPECT_EQ(t.integer(Tunable::stop_grace_ms), 4000);
  EXPECT_EQ(t.source(Tunable::stop_grace_ms), TunableSource::environment);
  EXPECT_EQ(t.origin(Tunable::stop_grace_ms), "env MPF_STOP_GRACE_MS");
  EXPECT_EQ(t.text(Tunable::run_dir), "/from/file");

  // --set beats the environment; the last --set of a name wins.
  const std::vector<std::string> sets{"stop_grace_ms=1", "stop_grace_ms=5000"};
  t = Tunables::resolve(env.envp(), sets);
  EXPECT_EQ(t.integer(Tunable::stop_grace_ms), 5000);
  EXPECT_EQ(t.value_text(Tunable::stop_grace_ms), "5000");
  EXPECT_EQ(t.source(Tunable::stop_grace_ms), TunableSource::command_line);
  EXPECT_EQ(t.origin(Tunable::stop_grace_ms), "--set");
  EXPECT_EQ(t.source(Tunable::run_dir), TunableSource::tuning_file);

  // The first definition of a variable wins, as with getenv.
  t = Tunables::resolve(Environment{"MPF_TUNING_FILE=", "MPF_STOP_GRACE_MS=7", "MPF_STOP_GRACE_MS=8"}.envp(), no_sets);
  EXPECT_EQ(t.integer(Tunable::stop_grace_ms), 7);
}

TEST_F(TunablesFiles, SetSelectsTheTuningFileOverTheEnvironment) {
  std::string env_file = write("env.json", R"({"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": 10}})");
  std::string set_file = write("set.json", R"({"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": 20}})");
  const std::vector<std::string> sets{"tuning_file=" + set_file};
  Tunables t = Tunables::resolve(Environment{"MPF_TUNING_FILE=" + env_file}.envp(), sets);
  EXPECT_EQ(t.integer(Tunable::stop_grace_ms), 20);
  EXPECT_EQ(t.origin(Tunable::stop_grace_ms), "tuning file " + set_file);
  EXPECT_EQ(t.text(Tunable::tuning_file), set_file);
  EXPECT_EQ(t.source(Tunable::tuning_file), TunableSource::command_line);

  // --set names a missing file: an error, though the environment's file exists.
  const std::vector<std::string> missing{"tuning_file=" + (dir_ / "nope.json").string()};
  EXPECT_THAT(resolve_error(Environment{"MPF_TUNING_FILE=" + env_file}, missing),
              HasSubstr("tuning file " + (dir_ / "nope.json").string() +
                        " (named by mpfrun --tuning or --set tuning_file): open: No such file or directory"));
}

TEST_F(TunablesFiles, AnExplicitMissingFileIsAnError) {
  std::string missing = (dir_ / "missing.json").string();
  EXPECT_EQ(resolve_error(Environment{"MPF_TUNING_FILE=" + missing}, {}),
            "tuning file " + missing + " (named by MPF_TUNING_FILE): open: No such file or directory");
  // A directory is not a file either.
  EXPECT_THAT(resolve_error(Environment{"MPF_TUNING_FILE=" + dir_.string()}, {}),
              HasSubstr("tuning file " + dir_.string() + " (named by MPF_TUNING_FILE): read: Is a directory"));
}

TEST_F(TunablesFiles, AMissingDefaultFileIsSkipped) {
  if (std::filesystem::exists(std::string(kDefaultTuningFile))) {
    GTEST_SKIP() << kDefaultTuningFile << " exists (the toolkit is installed here)";
  }
  Tunables t = Tunables::resolve(Environment{}.envp(), {});
  EXPECT_EQ(t.text(Tunable::tuning_file), kDefaultTuningFile);
  EXPECT_EQ(t.source(Tunable::tuning_file), TunableSource::default_value);
  EXPECT_EQ(t.origin(Tunable::tuning_file), "default (not found, skipped)");
  EXPECT_EQ(t.integer(Tunable::stop_grace_ms), 2000);
  // nullptr is an empty environment.
  EXPECT_EQ(Tunables::resolve(nullptr, {}).integer(Tunable::stop_grace_ms), 2000);
}

TEST_F(TunablesFiles, AnEmptyTuningFileMeansNone) {
  Tunables t = Tunables::resolve(Environment{"MPF_TUNING_FILE="}.envp(), {});
  EXPECT_EQ(t.text(Tunable::tuning_file), "");
  EXPECT_EQ(t.origin(Tunable::tuning_file), "env MPF_TUNING_FILE");
  EXPECT_EQ(t.source(Tunable::stop_grace_ms), TunableSource::default_value);
}

TEST_F(TunablesFiles, BadTuningFiles) {
  auto error_of = [this](const std::string& contents) {
    std::string path = write("bad.json", contents);
    std::string message = resolve_error(Environment{"MPF_TUNING_FILE=" + path}, {});
    EXPECT_THAT(message, HasSubstr(path)) << "the message names the file";
    return message;
  };
  std::string path = (dir_ / "bad.json").string();
  EXPECT_THAT(error_of("{\"mpf_tuning_version\": 1, "),
              HasSubstr("tuning file " + path + ": not valid JSON: [json.exception.parse_error"));
  EXPECT_THAT(error_of(""), HasSubstr("not valid JSON"));
  EXPECT_THAT(error_of("[1, 2]"), HasSubstr("tuning file " + path + ": expected a JSON object"));
  EXPECT_THAT(error_of(R"({"tunables": {}})"), HasSubstr("expected a JSON object"));
  EXPECT_THAT(error_of(R"({"mpf_tuning_version": 1})"), HasSubstr("expected a JSON object"));
  EXPECT_THAT(error_of(R"({"mpf_tuning_version": 1, "tunables": []})"), HasSubstr("expected a JSON object"));
  EXPECT_EQ(error_of(R"({"mpf_tuning_version": 2, "tunables": {}})"),
            "tuning file " + path + ": mpf_tuning_version is 2; this MPF Toolkit reads version 1");
  EXPECT_THAT(error_of(R"({"mpf_tuning_version": "1", "tunables": {}})"), HasSubstr("mpf_tuning_version is \"1\""));
  EXPECT_EQ(error_of(R"({"mpf_tuning_version": 1, "tunables": {}, "extra": 0})"),
            "tuning file " + path +
                ": unknown key 'extra' (expected mpf_tuning_version and tunables, and optionally collective_rules and "
                "machine)");
  EXPECT_EQ(error_of(R"({"mpf_tuning_version": 1, "tunables": {"foo": 1}})"),
            "tuning file " + path + ": unknown tunable 'foo' (mpfrun --list-params lists them)");
  EXPECT_EQ(error_of(R"({"mpf_tuning_version": 1, "tunables": {"stop_grace": 1}})"),
            "tuning file " + path +
                ": unknown tunable 'stop_grace'; did you mean stop_grace_ms? (mpfrun --list-params lists them)");
  EXPECT_EQ(error_of(R"({"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": true}})"),
            "tuning file " + path +
                ": tunable 'stop_grace_ms' is a JSON boolean (true); expected an integer number or a string");
  EXPECT_THAT(error_of(R"({"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": 1.5}})"),
              HasSubstr("tunable 'stop_grace_ms' is a JSON number (1.5)"));
  EXPECT_THAT(error_of(R"({"mpf_tuning_version": 1, "tunables": {"run_dir": 5}})"),
              HasSubstr("tunable 'run_dir' is a JSON number (5); expected a string"));
  EXPECT_THAT(error_of(R"({"mpf_tuning_version": 1, "tunables": {"run_dir": null}})"),
              HasSubstr("tunable 'run_dir' is a JSON null"));
  EXPECT_THAT(error_of(R"({"mpf_tuning_version": 1, "tunables": {"tuning_file": "/x"}})"),
              HasSubstr("tunable 'tuning_file' cannot be set in a tuning file"));
  EXPECT_EQ(error_of(R"({"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": -5}})"),
            "tunable stop_grace_ms: value '-5' from tuning file " + path + " is out of range [0, 600000]");
  EXPECT_THAT(error_of(R"({"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": 18446744073709551615}})"),
              HasSubstr("value '18446744073709551615' from tuning file " + path + " is out of range"));
  EXPECT_THAT(error_of(R"({"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": "soon"}})"),
              HasSubstr("value 'soon' from tuning file " + path + " is not an integer in [0, 600000]"));
}

TEST_F(TunablesFiles, CollectiveRulesAreTheCollRulesTunable) {
  // This layer keeps the array as the coll_rules tunable's text; the rules
  // themselves are checked by lib/coll (tests/unit/coll/rules_test.cpp).
  std::string path = write("t.json", R"({"mpf_tuning_version": 1, "tunables": {},
                                         "collective_rules": [{"operation": "bcast", "algorithm": "slots"}]})");
  Tunables t = Tunables::resolve(Environment{"MPF_TUNING_FILE=" + path}.envp(), {});
  EXPECT_EQ(nlohmann::json::parse(t.text(Tunable::coll_rules)),
            nlohmann::json::parse(R"([{"operation": "bcast", "algorithm": "slots"}])"));
  EXPECT_EQ(t.source(Tunable::coll_rules), TunableSource::tuning_file);
  EXPECT_EQ(t.origin(Tunable::coll_rules), "tuning file " + path);
  // The environment and --set override the file's rules as a whole.
  t = Tunables::resolve(Environment{"MPF_TUNING_FILE=" + path, "MPF_COLL_RULES=[]"}.envp(), {});
  EXPECT_EQ(t.text(Tunable::coll_rules), "[]");
  EXPECT_EQ(t.origin(Tunable::coll_rules), "env MPF_COLL_RULES");
  // Without the key, no rules.
  path = write("none.json", R"({"mpf_tuning_version": 1, "tunables": {}})");
  EXPECT_EQ(Tunables::resolve(Environment{"MPF_TUNING_FILE=" + path}.envp(), {}).text(Tunable::coll_rules), "");
}

TEST_F(TunablesFiles, CollectiveRulesMustBeAnArrayBesideTheTunables) {
  std::string path = write("t.json", R"({"mpf_tuning_version": 1, "tunables": {}, "collective_rules": {}})");
  EXPECT_EQ(resolve_error(Environment{"MPF_TUNING_FILE=" + path}, {}),
            "tuning file " + path +
                ": collective_rules is a JSON object; expected an array of rules (man 7 mpf, Collective rules)");
  path = write("inside.json", R"({"mpf_tuning_version": 1, "tunables": {"coll_rules": "[]"}})");
  EXPECT_EQ(resolve_error(Environment{"MPF_TUNING_FILE=" + path}, {}),
            "tuning file " + path +
                ": tunable 'coll_rules' is written as the tuning file's collective_rules array, beside tunables, "
                "not inside it (man 7 mpf, Collective rules)");
}

// ---- The machine a tuning file was measured on -------------------------------------

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

const MachineFingerprint kMeasured{.cpu_model = "Intel Xeon X @ 2.8GHz", .cpus = 8, .memory_bytes = 32 * kGiB};

// A tuning file setting stop_grace_ms, measured on `machine` (a JSON object's text).
std::string tuning_with_machine(const std::string& machine) {
  return R"({"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": 3000}, "machine": )" + machine + "}";
}

TEST_F(TunablesFiles, TheSameMachineGivesNoWarning) {
  const std::string path = write("t.json", tuning_with_machine(R"({"cpu_model": "Intel Xeon X @ 2.8GHz", "cpus": 8,
      "memory_bytes": 34359738368, "kernel": "Linux 6.1.0 x86_64", "toolkit_version": "0.1.0",
      "date": "2026-11-26T17:00:00Z"})"));
  Tunables t = Tunables::resolve(Environment{"MPF_TUNING_FILE=" + path}.envp(), {}, kMeasured);
  EXPECT_EQ(t.integer(Tunable::stop_grace_ms), 3000);
  EXPECT_EQ(t.warnings(), std::vector<std::string>{});
  // MemTotal wobbles: a few MiB less is the same machine.
  MachineFingerprint wobbled = kMeasured;
  wobbled.memory_bytes -= 40 << 20;
  EXPECT_EQ(Tunables::resolve(Environment{"MPF_TUNING_FILE=" + path}.envp(), {}, wobbled).warnings().size(), 0u);
  // The provenance is optional.
  const std::string bare = write("bare.json", tuning_with_machine(R"({"cpu_model": "Intel Xeon X @ 2.8GHz",
      "cpus": 8, "memory_bytes": 34359738368})"));
  EXPECT_EQ(Tunables::resolve(Environment{"MPF_TUNING_FILE=" + bare}.envp(), {}, kMeasured).warnings().size(), 0u);
}

TEST_F(TunablesFiles, AnotherMachineGivesOneWarningAndTheValuesStillApply) {
  const std::string path = write("t.json", tuning_with_machine(R"({"cpu_model": "Intel Xeon X @ 2.8GHz", "cpus": 8,
      "memory_bytes": 34359738368})"));
  const MachineFingerprint here{.cpu_model = "Intel Xeon Y", .cpus = 2, .memory_bytes = 24 * kGiB};
  Tunables t = Tunables::resolve(Environment{"MPF_TUNING_FILE=" + path}.envp(), {}, here);
  EXPECT_EQ(t.integer(Tunable::stop_grace_ms), 3000);
  EXPECT_EQ(t.origin(Tunable::stop_grace_ms), "tuning file " + path);
  ASSERT_EQ(t.warnings().size(), 1u);
  EXPECT_EQ(t.warnings()[0], "tuning file " + path +
                                 " was measured on another machine (Intel Xeon X @ 2.8GHz, 8 CPUs, 32 GiB of memory; "
                                 "this one: Intel Xeon Y, 2 CPUs, 24 GiB of memory); its values still apply; run "
                                 "mpftune on this machine to tune it");
  EXPECT_EQ(t.warnings()[0].find('\n'), std::string::npos);

  // Only what differs.
  MachineFingerprint fewer = kMeasured;
  fewer.cpus = 2;
  t = Tunables::resolve(Environment{"MPF_TUNING_FILE=" + path}.envp(), {}, fewer);
  ASSERT_EQ(t.warnings().size(), 1u);
  EXPECT_THAT(t.warnings()[0], HasSubstr("was measured on another machine (8 CPUs; this one: 2 CPUs); "));

  // The ranks' copies carry no warning: mpfrun prints it once for the job.
  EXPECT_EQ(Tunables::from_json(t.to_json()).warnings().size(), 0u);
  EXPECT_EQ(Tunables::defaults().warnings().size(), 0u);
  // No file, no machine, no warning.
  EXPECT_EQ(Tunables::resolve(Environment{"MPF_TUNING_FILE="}.envp(), {}, fewer).warnings().size(), 0u);
  const std::string plain = write("plain.json", R"({"mpf_tuning_version": 1, "tunables": {}})");
  EXPECT_EQ(Tunables::resolve(Environment{"MPF_TUNING_FILE=" + plain}.envp(), {}, fewer).warnings().size(), 0u);
}

TEST_F(TunablesFiles, WhatMpftuneWritesReadsAsThisMachine) {
  const MachineFingerprint here = MachineFingerprint::current();
  const nlohmann::json machine = tuning_file_machine(here, "2026-11-26T17:00:00Z");
  EXPECT_EQ(machine["cpu_model"], here.cpu_model);
  EXPECT_EQ(machine["cpus"], here.cpus);
  EXPECT_EQ(machine["memory_bytes"], here.memory_bytes);
  EXPECT_EQ(machine["kernel"], kernel_description());
  EXPECT_EQ(machine["toolkit_version"], std::string(kVersion));
  EXPECT_EQ(machine["date"], "2026-11-26T17:00:00Z");
  EXPECT_EQ(machine.size(), 6u);
  nlohmann::json document = {{"mpf_tuning_version", kTuningFileVersion},
                             {"tunables", {{"stop_grace_ms", 2500}}},
                             {"machine", machine}};
  const std::string path = write("tuned.json", document.dump(2));
  // This machine, as resolve() reads it itself.
  Tunables t = Tunables::resolve(Environment{"MPF_TUNING_FILE=" + path}.envp(), {});
  EXPECT_EQ(t.integer(Tunable::stop_grace_ms), 2500);
  EXPECT_EQ(t.warnings().size(), 0u);
}

TEST_F(TunablesFiles, AMalformedMachineIsAnErrorNamingTheField) {
  auto error_of = [this](const std::string& machine) {
    const std::string path = write("bad.json", tuning_with_machine(machine));
    return resolve_error(Environment{"MPF_TUNING_FILE=" + path}, {});
  };
  const std::string head = "tuning file " + (dir_ / "bad.json").string() + ": ";
  const std::string fields =
      "cpu_model, cpus and memory_bytes, and optionally kernel, toolkit_version and date (man 7 mpf, The tuning file)";
  EXPECT_EQ(error_of(R"({"cpu_model": "X", "memory_bytes": 1})"),
            head + "machine has no field 'cpus'; it names " + fields);
  EXPECT_EQ(error_of(R"({"cpu_model": "X", "cpus": "2", "memory_bytes": 1})"),
            head + "machine field 'cpus' is a JSON string (\"2\"); expected an integer of at least 1");
  EXPECT_EQ(error_of(R"([{"cpu_model": "X", "cpus": 2, "memory_bytes": 1}])"),
            head + "machine is a JSON array; expected an object with " + fields);
  EXPECT_EQ(error_of(R"({"cpu_model": "X", "cpus": 0, "memory_bytes": 1})"),
            head + "machine field 'cpus' is a JSON number (0); expected an integer of at least 1");
  EXPECT_EQ(error_of(R"({"cpu_model": "X", "cpus": 2.5, "memory_bytes": 1})"),
            head + "machine field 'cpus' is a JSON number (2.5); expected an integer of at least 1");
  EXPECT_EQ(error_of(R"({"cpu_model": "X", "cpus": 2, "memory_bytes": -1})"),
            head + "machine field 'memory_bytes' is a JSON number (-1); expected an integer of at least 0");
  EXPECT_EQ(error_of(R"({"cpu_model": "X", "cpus": 2, "memory_bytes": 18446744073709551615})"),
            head +
                "machine field 'memory_bytes' is a JSON number (18446744073709551615); expected an integer of at "
                "least 0");
  EXPECT_EQ(error_of(R"({"cpu_model": 7, "cpus": 2, "memory_bytes": 1})"),
            head + "machine field 'cpu_model' is a JSON number (7); expected a string");
  EXPECT_EQ(error_of(R"({"cpu_model": "X", "cpus": 2, "memory_bytes": 1, "date": 2026})"),
            head + "machine field 'date' is a JSON number (2026); expected a string");
  EXPECT_EQ(error_of(R"({"cpu_model": "X", "cpus": 2, "memory_bytes": 1, "hostname": "n1"})"),
            head +
                "machine has an unknown field 'hostname' (expected cpu_model, cpus and memory_bytes, and optionally "
                "kernel, toolkit_version and date)");
  for (const char* machine : {R"({"cpus": 2})", R"("2 CPUs")", "null"}) {
    const std::string message = error_of(machine);
    EXPECT_EQ(message.rfind(head + "machine ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST_F(TunablesFiles, StringsInTheFileGoThroughTheTextParser) {
  std::string path = write("t.json", R"({"mpf_tuning_version": 1, "tunables": {"stop_grace_ms": "+250"}})");
  Tunables t = Tunables::resolve(Environment{"MPF_TUNING_FILE=" + path}.envp(), {});
  EXPECT_EQ(t.integer(Tunable::stop_grace_ms), 250);
}

TEST(TunablesResolve, BadValuesNameTheirSource) {
  EXPECT_EQ(resolve_error(Environment{"MPF_TUNING_FILE=", "MPF_STOP_GRACE_MS=-5"}, {}),
            "tunable stop_grace_ms: value '-5' from MPF_STOP_GRACE_MS is out of range [0, 600000]");
  EXPECT_EQ(resolve_error(Environment{"MPF_TUNING_FILE="}, {"stop_grace_ms=lots"}),
            "tunable stop_grace_ms: value 'lots' from --set is not an integer in [0, 600000]");
  EXPECT_EQ(resolve_error(Environment{"MPF_TUNING_FILE="}, {"stop_grace_ms="}),
            "tunable stop_grace_ms: empty value from --set; expected an integer in [0, 600000]");
}

// OpenSHMEM's variables set their tunables, written as the standard says
// (a size may have a fraction, a switch is on when set to anything), and
// the MPF_ name wins where both are set.
TEST(TunablesResolve, StandardVariables) {
  Tunables t = Tunables::resolve(Environment{"MPF_TUNING_FILE=", "SHMEM_SYMMETRIC_SIZE=1.5G", "SHMEM_INFO="}.envp(), {});
  EXPECT_EQ(t.integer(Tunable::shmem_symmetric_size), std::int64_t{3} << 29);
  EXPECT_EQ(t.origin(Tunable::shmem_symmetric_size), "env SHMEM_SYMMETRIC_SIZE");
  EXPECT_TRUE(t.boolean(Tunable::shmem_info));
  EXPECT_FALSE(t.boolean(Tunable::shmem_debug));
  t = Tunables::resolve(Environment{"MPF_TUNING_FILE=", "SHMEM_SYMMETRIC_SIZE=64M", "SHMEM_DEBUG=yes please",
                                    "SHMEM_VERSION=0"}
                            .envp(),
                        {});
  EXPECT_EQ(t.integer(Tunable::shmem_symmetric_size), std::int64_t{64} << 20);
  EXPECT_TRUE(t.boolean(Tunable::shmem_debug));
  EXPECT_FALSE(t.boolean(Tunable::shmem_version));
  t = Tunables::resolve(
      Environment{"MPF_TUNING_FILE=", "SHMEM_SYMMETRIC_SIZE=1G", "MPF_SHMEM_SYMMETRIC_SIZE=2G"}.envp(), {});
  EXPECT_EQ(t.integer(Tunable::shmem_symmetric_size), std::int64_t{2} << 30);
  EXPECT_EQ(t.origin(Tunable::shmem_symmetric_size), "env MPF_SHMEM_SYMMETRIC_SIZE");
  EXPECT_EQ(resolve_error(Environment{"MPF_TUNING_FILE=", "SHMEM_SYMMETRIC_SIZE=lots"}, {}),
            "tunable shmem_symmetric_size: value 'lots' from SHMEM_SYMMETRIC_SIZE is not a size in [4KiB, 1TiB] "
            "(bytes, or with suffix K/KiB, M/MiB, G/GiB, T/TiB)");
  // Other SHMEM_ variables are other implementations' business.
  EXPECT_NO_THROW(Tunables::resolve(Environment{"MPF_TUNING_FILE=", "SHMEM_OFI_PROVIDER=tcp"}.envp(), {}));
}

TEST(TunablesResolve, UnknownNamesAreErrors) {
  EXPECT_EQ(resolve_error(Environment{"MPF_TUNING_FILE="}, {"stop_grace=5"}),
            "unknown tunable 'stop_grace' in --set stop_grace=5; did you mean stop_grace_ms? "
            "(mpfrun --list-params lists them)");
  EXPECT_EQ(resolve_error(Environment{"MPF_TUNING_FILE="}, {"frobnicate=5"}),
            "unknown tunable 'frobnicate' in --set frobnicate=5 (mpfrun --list-params lists them)");
  EXPECT_THAT(resolve_error(Environment{"MPF_TUNING_FILE="}, {"STOP_GRACE_MS=5"}),
              HasSubstr("did you mean stop_grace_ms?"));
  EXPECT_EQ(resolve_error(Environment{"MPF_TUNING_FILE="}, {"stop_grace_ms"}),
            "--set stop_grace_ms: expected NAME=VALUE, e.g. --set stop_grace_ms=5000");
  EXPECT_THAT(resolve_error(Environment{"MPF_TUNING_FILE="}, {"=5"}), HasSubstr("expected NAME=VALUE"));

  EXPECT_EQ(resolve_error(Environment{"MPF_TUNING_FILE=", "MPF_STOP_GRACE=5"}, {}),
            "unknown tunable 'stop_grace' in environment variable MPF_STOP_GRACE; did you mean "
            "MPF_STOP_GRACE_MS? (mpfrun --list-params lists them); unset MPF_STOP_GRACE if it is not meant "
            "for the MPF Toolkit");
  EXPECT_THAT(resolve_error(Environment{"MPF_XYZZY=1"}, {}),
              HasSubstr("unknown tunable 'xyzzy' in environment variable MPF_XYZZY (mpfrun --list-params"));
  // The variable's name is the upper-cased tunable name, exactly.
  EXPECT_THAT(resolve_error(Environment{"MPF_stop_grace_ms=5"}, {}),
              HasSubstr("in environment variable MPF_stop_grace_ms; did you mean MPF_STOP_GRACE_MS?"));
  // Names are checked before any file is read.
  EXPECT_THAT(resolve_error(Environment{"MPF_TUNING_FILE=/nonexistent/t.json"}, {"nope=1"}),
              HasSubstr("unknown tunable 'nope'"));
}

// ---- Output -------------------------------------------------------------------------

TEST_F(TunablesFiles, JsonRoundTrip) {
  std::string file = write("t.json", R"({"mpf_tuning_version": 1, "tunables": {"run_dir": "/from/file"}})");
  const std::vector<std::string> sets{"stop_grace_ms=123"};
  Tunables t = Tunables::resolve(Environment{"MPF_TUNING_FILE=" + file}.envp(), sets);

  nlohmann::json json = t.to_json();
  ASSERT_TRUE(json.is_array());
  ASSERT_EQ(json.size(), kTunableCount);
  const nlohmann::json& grace = json[static_cast<std::size_t>(Tunable::stop_grace_ms)];
  EXPECT_EQ(grace["name"], "stop_grace_ms");
  EXPECT_EQ(grace["kind"], "integer");
  EXPECT_TRUE(grace["value"].is_number_integer());
  EXPECT_EQ(grace["value"], 123);
  EXPECT_EQ(grace["source"], "set");
  EXPECT_EQ(grace["origin"], "--set");
  EXPECT_EQ(grace["doc"], spec(Tunable::stop_grace_ms).doc);

  // Through text, as the launcher sends it.
  Tunables back = Tunables::from_json(nlohmann::json::parse(json.dump()));
  for (const TunableSpec& row : kTunableTable) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_EQ(back.value_text(row.id), t.value_text(row.id));
    EXPECT_EQ(back.source(row.id), t.source(row.id));
    EXPECT_EQ(back.origin(row.id), t.origin(row.id));
  }
  EXPECT_EQ(back.to_json(), json);
}

TEST(TunablesJson, FromJsonValidates) {
  const nlohmann::json good = Tunables::defaults().to_json();
  auto error_of = [](const nlohmann::json& json) {
    try {
      Tunables::from_json(json);
    } catch (const TunableError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const auto grace = static_cast<std::size_t>(Tunable::stop_grace_ms);

  EXPECT_EQ(error_of(good), "");
  EXPECT_THAT(error_of(nlohmann::json::object()), HasSubstr("tunables JSON: expected an array"));
  nlohmann::json j = good;
  j.erase(grace);
  EXPECT_EQ(error_of(j), "tunables JSON: tunable 'stop_grace_ms' is missing");
  j = good;
  j.push_back(good[grace]);
  EXPECT_THAT(error_of(j), HasSubstr("tunable 'stop_grace_ms' appears twice"));
  j = good;
  j[grace]["value"] = 600001;
  EXPECT_EQ(error_of(j), "tunable stop_grace_ms: value '600001' from tunables JSON is out of range [0, 600000]");
  j = good;
  j[grace]["value"] = "2000";
  EXPECT_EQ(error_of(j), "") << "strings go through the parser";
  j = good;
  j[grace]["value"] = false;
  EXPECT_THAT(error_of(j), HasSubstr("is a JSON boolean"));
  j = good;
  j[grace]["name"] = "stop_grace";
  EXPECT_THAT(error_of(j), HasSubstr("unknown tunable 'stop_grace'; did you mean stop_grace_ms?"));
  j = good;
  j[grace]["kind"] = "size";
  EXPECT_THAT(error_of(j), HasSubstr("is of kind \"size\"; this build declares it integer"));
  j = good;
  j[grace]["source"] = "somewhere";
  EXPECT_THAT(error_of(j), HasSubstr("has source 'somewhere'"));
  j = good;
  j[grace].erase("origin");
  EXPECT_THAT(error_of(j), HasSubstr("is not an object with"));
  j = good;
  j[grace] = 5;
  EXPECT_THAT(error_of(j), HasSubstr("is not an object with"));
}

TEST(TunablesText, TableTextListsEveryTunable) {
  const std::vector<std::string> sets{"stop_grace_ms=100"};
  Tunables t = Tunables::resolve(Environment{"MPF_TUNING_FILE="}.envp(), sets);
  std::string text = t.table_text();

  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  EXPECT_EQ(start, text.size()) << "ends with a newline";
  ASSERT_EQ(lines.size(), kTunableCount + 1);
  EXPECT_EQ(lines[0].rfind("NAME", 0), 0u);

  // Columns line up: every line has its value where the header has VALUE.
  std::size_t value_column = lines[0].find("VALUE");
  std::size_t source_column = lines[0].find("SOURCE");
  std::size_t doc_column = lines[0].find("DESCRIPTION");
  for (const TunableSpec& row : kTunableTable) {
    const std::string& line = lines[static_cast<std::size_t>(row.id) + 1];
    SCOPED_TRACE(line);
    EXPECT_EQ(line.rfind(std::string(row.name) + " ", 0), 0u);
    std::string value = t.value_text(row.id).empty() ? "\"\"" : t.value_text(row.id);
    EXPECT_EQ(line.substr(value_column, value.size()), value);
    EXPECT_EQ(line.substr(source_column, t.origin(row.id).size()), t.origin(row.id));
    EXPECT_EQ(line.substr(doc_column), row.doc);
  }
  EXPECT_THAT(text, HasSubstr("--set"));
  EXPECT_THAT(text, HasSubstr("env MPF_TUNING_FILE"));
}

TEST(TunablesRunDir, EmptyMeansTmpdir) {
  // Restores TMPDIR whatever the test does with it.
  struct SavedTmpdir {
    std::optional<std::string> value;
    SavedTmpdir() {
      if (const char* v = std::getenv("TMPDIR")) value = v;
    }
    ~SavedTmpdir() {
      if (value) {
        ::setenv("TMPDIR", value->c_str(), 1);
      } else {
        ::unsetenv("TMPDIR");
      }
    }
  } saved;
  const std::string uid = std::to_string(::getuid());
  Tunables defaults = Tunables::defaults();

  ::setenv("TMPDIR", "/scratch/tmp/", 1);
  EXPECT_EQ(resolved_run_dir(defaults), "/scratch/tmp/mpf-" + uid);
  ::setenv("TMPDIR", "", 1);
  EXPECT_EQ(resolved_run_dir(defaults), "/tmp/mpf-" + uid);
  ::unsetenv("TMPDIR");
  EXPECT_EQ(resolved_run_dir(defaults), "/tmp/mpf-" + uid);

  const std::vector<std::string> sets{"run_dir=/var/run/mpf"};
  Tunables t = Tunables::resolve(Environment{"MPF_TUNING_FILE="}.envp(), sets);
  EXPECT_EQ(resolved_run_dir(t), "/var/run/mpf");
}

}  // namespace
}  // namespace mpf::common
