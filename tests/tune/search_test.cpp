// The tunable search as a unit, on a cost model with known crossovers and
// injected noise instead of jobs: where it puts thresholds, what it refuses,
// what the verification reverts, and how a stopped search resumes.
#include "tune/search/search.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <random>

#include "tune/search/journal.hpp"
#include "tune/search/space.hpp"

namespace mpf::tune::search {
namespace {

// A job's time per operation under a config, at a point.
using CostModel = std::function<double(const Config&, const std::string& kernel, long bytes)>;

class ModelMeasurer : public Measurer {
 public:
  ModelMeasurer(CostModel model, double noise, std::uint32_t seed = 7)
      : model_(std::move(model)), noise_(noise), random_(seed) {}
  Figures run(const Config& config, const Probe& probe) override {
    if (interrupt_after_ >= 0 && jobs_ == interrupt_after_) throw Interrupted{};
    ++jobs_;
    spent_ += kJobSeconds;
    Figures out;
    std::vector<long> sizes = probe.sizes;
    if (sizes.empty()) sizes = {8};
    for (const long bytes : sizes) {
      std::vector<double> samples;
      for (int i = 0; i < 5; ++i) {
        samples.push_back(model_(config, probe.kernel, bytes) * (1 + noise_ * normal_(random_)));
      }
      out[PointKey{probe.kernel, "-", probe.np, bytes}] = one_job("us", false, samples);
    }
    return out;
  }
  double spent() const override { return spent_; }
  int jobs() const { return jobs_; }
  void interrupt_after(int jobs) { interrupt_after_ = jobs; }

  static constexpr double kJobSeconds = 0.5;

 private:
  CostModel model_;
  double noise_;
  std::mt19937 random_;
  std::normal_distribution<double> normal_{0, 1};
  int jobs_ = 0, interrupt_after_ = -1;
  double spent_ = 0;
};

// Appends one job's figure to `into`, as pooling a trial does.
void pool_job(Figure& into, const Figure& job) {
  Figures a{{PointKey{"k", "-", 2, 8}, into}};
  pool(a, Figures{{PointKey{"k", "-", 2, 8}, job}});
  into = a.begin()->second;
}

std::int64_t value(const Config& c, const std::string& tunable) {
  return numeric_value(tunable, current_text(c, tunable));
}

// Eager costs 1 us + 1 ns per byte; rendezvous 10 us + 0.25 ns per byte: the
// curves cross at 12 KB, so the best power-of-two limit is 8 KiB.
double eager_model(const Config& c, const std::string&, long bytes) {
  const double b = static_cast<double>(bytes);
  return bytes <= value(c, "eager_limit") ? 1 + b / 1000 : 10 + b / 4000;
}

Dimension eager_dimension() {
  return Dimension{.tunable = "eager_limit",
                   .group = "point-to-point",
                   .method = Method::crossover,
                   .question = "eager against rendezvous",
                   .candidates = {"1KiB", "2KiB", "4KiB", "8KiB", "16KiB", "32KiB", "64KiB", "128KiB", "256KiB"},
                   .all_below = "256KiB",
                   .all_above = "64",
                   .prefer_low = true,
                   .probes = [](const Config&) { return std::vector<Probe>{{.kernel = "pingpong", .np = 2}}; }};
}

SessionSettings quiet(double budget = 1e9) { return SessionSettings{.budget_seconds = budget}; }

TEST(SearchCrossover, FindsWhereTheProtocolCurvesCrossWithinOneGridStep) {
  for (const std::uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    ModelMeasurer m(eager_model, 0.02, seed);
    Session s(m, quiet());
    const Dimension d = eager_dimension();
    Config current;
    const Choice c = search_dimension(s, d, current);
    const std::int64_t chosen = numeric_value("eager_limit", c.chosen);
    // 8 KiB is the best on the grid; one step either way is allowed.
    EXPECT_GE(chosen, 4096) << "seed " << seed << ": " << c.why;
    EXPECT_LE(chosen, 16384) << "seed " << seed << ": " << c.why;
    EXPECT_EQ(current_text(current, "eager_limit"), c.chosen);
    EXPECT_FALSE(c.curves.empty());
    // Both protocols were measured only coarsely away from the crossing:
    // fewer sizes than the grid on each curve.
    EXPECT_LT(c.curves.front().points.size(), d.candidates.size());
  }
}

TEST(SearchCrossover, MovesTheThresholdUpWhenTheLowerProtocolWinsFurther) {
  // Rendezvous costs 40 us: eager (1 ns per byte) wins up to 32 KiB.
  auto model = [](const Config& c, const std::string&, long bytes) {
    return bytes <= value(c, "eager_limit") ? 1 + static_cast<double>(bytes) / 1000 : 40.0;
  };
  ModelMeasurer m(model, 0.01);
  Session s(m, quiet());
  const Dimension d = eager_dimension();
  Config current;
  const Choice c = search_dimension(s, d, current);
  EXPECT_EQ(c.chosen, "32KiB") << c.why;
  ASSERT_TRUE(c.confirmation.has_value());
  EXPECT_TRUE(c.confirmation->accepted());
}

TEST(SearchCrossover, RefinesWhereTheLowerProtocolStopsWinningEvenWhenTheCurvesTieBeyond) {
  // Eager wins clearly up to 128 KiB; from 256 KiB both cost the same: the
  // threshold is 128 KiB, which the coarse pass (powers of 4) never measures.
  auto model = [](const Config& c, const std::string&, long bytes) {
    const double b = static_cast<double>(bytes);
    if (bytes >= 262144) return b / 10000;
    return bytes <= value(c, "eager_limit") ? b / 10000 : 10 + b / 10000;
  };
  ModelMeasurer m(model, 0.01);
  Session s(m, quiet());
  const Dimension d = eager_dimension();
  Config current;
  const Choice c = search_dimension(s, d, current);
  EXPECT_EQ(c.chosen, "128KiB") << c.why;
}

TEST(SearchCrossover, StepsBackWhenTheFarEndOfARaisedThresholdLoses) {
  // Eager wins up to 256 KiB while the crossover is measured (its first 4
  // jobs, coarse only); measured again, 256 KiB loses 30 % (a machine that
  // changed its mind). The threshold steps back to 128 KiB.
  const ModelMeasurer* self = nullptr;
  auto model = [&self](const Config& c, const std::string&, long bytes) {
    const double b = static_cast<double>(bytes);
    const bool eager = bytes <= value(c, "eager_limit");
    if (bytes >= 262144) return eager ? (self->jobs() > 4 ? 1.3 : 0.8) * b / 10000 : b / 10000;
    return eager ? b / 10000 : 10 + b / 10000;
  };
  ModelMeasurer m(model, 0.01);
  self = &m;
  Session s(m, quiet());
  const Dimension d = eager_dimension();
  Config current;
  const Choice c = search_dimension(s, d, current);
  EXPECT_EQ(c.chosen, "128KiB") << c.why;
  EXPECT_NE(c.why.find("Stepping back to 128KiB"), std::string::npos) << c.why;
  EXPECT_EQ(current_text(current, "eager_limit"), "128KiB");
}

Dimension mode_dimension() {
  return Dimension{.tunable = "rndv_mode",
                   .group = "point-to-point",
                   .method = Method::choice,
                   .question = "rendezvous copy",
                   .candidates = {"split", "get", "put", "copy"},
                   .probes = [](const Config&) {
                     return std::vector<Probe>{{.kernel = "bw", .np = 2, .sizes = {65536, 1 << 20}}};
                   }};
}

TEST(SearchChoice, RejectsAGainInsideTheNoise) {
  // "get" is 3 % faster, but every job varies by 10 %.
  auto model = [](const Config& c, const std::string&, long) {
    return current_text(c, "rndv_mode") == "get" ? 97.0 : 100.0;
  };
  ModelMeasurer m(model, 0.10);
  Session s(m, quiet());
  const Dimension d = mode_dimension();
  Config current;
  const Choice c = search_dimension(s, d, current);
  EXPECT_EQ(c.chosen, "split") << c.why;
  EXPECT_FALSE(c.changed());
  EXPECT_TRUE(current.empty());
}

TEST(SearchChoice, RejectsAGainBelowTheSmallestEffectHoweverTight) {
  // 1 % faster with almost no noise: not worth a tuning file.
  auto model = [](const Config& c, const std::string&, long) {
    return current_text(c, "rndv_mode") == "put" ? 99.0 : 100.0;
  };
  ModelMeasurer m(model, 0.0005);
  Session s(m, quiet());
  const Dimension d = mode_dimension();
  Config current;
  EXPECT_EQ(search_dimension(s, d, current).chosen, "split");
}

TEST(SearchChoice, TakesAClearGain) {
  auto model = [](const Config& c, const std::string&, long) {
    return current_text(c, "rndv_mode") == "get" ? 80.0 : 100.0;
  };
  ModelMeasurer m(model, 0.02);
  Session s(m, quiet());
  const Dimension d = mode_dimension();
  Config current;
  const Choice c = search_dimension(s, d, current);
  EXPECT_EQ(c.chosen, "get") << c.why;
  EXPECT_EQ(current.at("rndv_mode"), "get");
}

TEST(SearchSmallest, FindsTheSmallestBufferWithinNoiseOfTheLargest) {
  // Below 1 MiB the senders wait: the smaller the pool, the slower.
  auto model = [](const Config& c, const std::string&, long) {
    const double pool = static_cast<double>(value(c, "unexpected_pool"));
    return pool >= (1 << 20) ? 10.0 : 10.0 * (1 + 0.3 * (1 << 20) / pool);
  };
  ModelMeasurer m(model, 0.01);
  Session s(m, quiet());
  Dimension d{.tunable = "unexpected_pool",
              .group = "buffers",
              .method = Method::smallest,
              .question = "pool",
              .candidates = {"64KiB", "256KiB", "1MiB", "2MiB", "4MiB", "16MiB", "64MiB"},
              .probes = [](const Config&) { return std::vector<Probe>{{.kernel = "flood", .np = 8}}; },
              .memory = [](const std::string& v, const Config&) -> std::optional<std::int64_t> {
                return numeric_value("unexpected_pool", v);
              }};
  Config current;
  const Choice c = search_dimension(s, d, current);
  EXPECT_EQ(c.chosen, "1MiB") << c.why;
  ASSERT_TRUE(c.memory_before && c.memory_chosen);
  EXPECT_EQ(*c.memory_before - *c.memory_chosen, 3 << 20);  // saved per rank against the 4 MiB default
}

TEST(SearchVerification, RevertsAPlantedRegression) {
  // ring_slots=8 makes msgrate 20 % slower, which its own step did not see;
  // eager_limit=8KiB makes pingpong faster and nothing slower.
  auto model = [](const Config& c, const std::string& kernel, long bytes) {
    if (kernel == "msgrate") return value(c, "ring_slots") < 32 ? 12.0 : 10.0;
    return eager_model(c, kernel, bytes);
  };
  ModelMeasurer m(model, 0.01);
  Session s(m, quiet());
  Dimension eager = eager_dimension();
  Dimension slots{.tunable = "ring_slots",
                  .group = "buffers",
                  .method = Method::smallest,
                  .question = "slots",
                  .candidates = {"8", "32"},
                  .probes = [](const Config&) { return std::vector<Probe>{}; }};
  std::vector<Choice> choices(2);
  choices[0].dimension = &eager;
  choices[0].before = "16KiB";
  choices[0].chosen = "8KiB";
  choices[1].dimension = &slots;
  choices[1].before = "32";
  choices[1].chosen = "8";
  Config chosen = {{"eager_limit", "8KiB"}, {"ring_slots", "8"}};
  const std::vector<Probe> probes = {{.kernel = "pingpong", .np = 2, .sizes = {4096, 16384}},
                                     {.kernel = "msgrate", .np = 2, .sizes = {8}}};
  const Verification v = verify(s, probes, chosen, choices);
  EXPECT_TRUE(v.ran);
  EXPECT_EQ(v.reverted, std::vector<std::string>{"ring_slots"});
  EXPECT_EQ(chosen, (Config{{"eager_limit", "8KiB"}}));
  EXPECT_TRUE(choices[1].reverted);
  EXPECT_NE(choices[1].revert_reason.find("msgrate 8 np 2: 1.2"), std::string::npos) << choices[1].revert_reason;
  EXPECT_FALSE(choices[0].reverted);
  EXPECT_EQ(v.table.worse, 0);
}

TEST(SearchVerification, WhenOnlyACombinationLosesTheLaterChoicesGoFirst) {
  // msgrate is 20 % slower only with both values at once.
  auto model = [](const Config& c, const std::string& kernel, long bytes) {
    if (kernel == "msgrate") return value(c, "ring_slots") < 32 && value(c, "eager_limit") < 16384 ? 12.0 : 10.0;
    return eager_model(c, kernel, bytes);
  };
  ModelMeasurer m(model, 0.01);
  Session s(m, quiet());
  // Searched in this order: eager_limit first, then ring_slots.
  Dimension eager = eager_dimension();
  Dimension slots{.tunable = "ring_slots", .group = "buffers", .method = Method::smallest, .question = "slots"};
  std::vector<Choice> choices(2);
  choices[0].dimension = &eager;
  choices[1].dimension = &slots;
  Config chosen = {{"eager_limit", "8KiB"}, {"ring_slots", "8"}};
  const Verification v = verify(s, {{.kernel = "msgrate", .np = 2, .sizes = {8}}}, chosen, choices);
  // The later choice goes back; the earlier one alone loses nowhere.
  EXPECT_EQ(chosen, (Config{{"eager_limit", "8KiB"}}));
  EXPECT_EQ(v.reverted, std::vector<std::string>{"ring_slots"});
  EXPECT_NE(choices[1].revert_reason.find("no value alone did"), std::string::npos) << choices[1].revert_reason;
}

TEST(SearchVerification, ALossThatDoesNotComeBackRevertsNothing) {
  // The first job of the candidate is slow (a noisy neighbour), none after.
  int calls = 0;
  auto model = [&calls](const Config& c, const std::string&, long) {
    return !c.empty() && ++calls <= 5 ? 13.0 : 10.0;  // five samples of its first job
  };
  ModelMeasurer m(model, 0.01);
  Session s(m, quiet());
  Config chosen = {{"ring_slots", "64"}};
  std::vector<Choice> choices;
  const Verification v = verify(s, {{.kernel = "msgrate", .np = 2, .sizes = {8}}}, chosen, choices);
  EXPECT_EQ(chosen, (Config{{"ring_slots", "64"}}));
  EXPECT_TRUE(v.reverted.empty());
  EXPECT_EQ(v.not_reproduced, std::vector<std::string>{"msgrate 8 np 2"});
}

TEST(SearchVerdict, ALossSmallerThanHowMuchJobsDifferIsNoLoss) {
  // Each job's batches agree within 1 %, but the incumbent's two jobs ran
  // at 10 and 14 us: a candidate at 15 us is inside that.
  Figure incumbent = one_job("us", false, {10.0, 10.1, 9.9});
  pool_job(incumbent, one_job("us", false, {14.0, 14.1, 13.9}));
  Figure candidate = one_job("us", false, {15.0, 15.1, 14.9});
  pool_job(candidate, one_job("us", false, {15.0, 15.2, 14.8}));
  EXPECT_NEAR(job_spread(incumbent), 4.0 / 12.0, 1e-9);
  EXPECT_EQ(judge_point(PointKey{"pingpong", "-", 2, 8}, incumbent, candidate).verdict, Verdict::same);
  // The same candidate against jobs that agree is a loss.
  Figure steady = one_job("us", false, {10.0, 10.1, 9.9});
  pool_job(steady, one_job("us", false, {10.2, 10.1, 10.0}));
  EXPECT_EQ(judge_point(PointKey{"pingpong", "-", 2, 8}, steady, candidate).verdict, Verdict::worse);
}

TEST(SearchVerification, NothingChangedNothingToVerify) {
  ModelMeasurer m(eager_model, 0.01);
  Session s(m, quiet());
  Config chosen;
  std::vector<Choice> choices;
  const Verification v = verify(s, {{.kernel = "pingpong", .np = 2}}, chosen, choices);
  EXPECT_FALSE(v.ran);
  EXPECT_EQ(m.jobs(), 0);
}

TEST(Search, StopsSearchingWhenItsShareOfTheBudgetIsSpent) {
  ModelMeasurer m(eager_model, 0.01);
  // Room for a few jobs only: the first dimension runs, the second waits.
  Session s(m, quiet(10 * ModelMeasurer::kJobSeconds));
  const std::vector<Dimension> space = {eager_dimension(), mode_dimension()};
  const SearchOutcome out = run_search(s, space, {{.kernel = "pingpong", .np = 2, .sizes = {4096}}});
  ASSERT_EQ(out.choices.size(), 2u);
  EXPECT_FALSE(out.choices[0].skipped);
  EXPECT_TRUE(out.choices[1].skipped);
  EXPECT_NE(out.choices[1].why.find("budget"), std::string::npos);
}

TEST(SearchJournal, AnInterruptedSearchResumesWhereItStopped) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("mpftune-journal-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "journal.jsonl").string();
  const nlohmann::json header = {{"mpftune_journal", 1}, {"quick", false}};
  const std::vector<Dimension> space = {eager_dimension(), mode_dimension()};
  const std::vector<Probe> verification = {{.kernel = "pingpong", .np = 2, .sizes = {4096, 16384}}};
  auto model = [](const Config& c, const std::string& kernel, long bytes) {
    return eager_model(c, kernel, bytes) * (current_text(c, "rndv_mode") == "get" ? 0.8 : 1.0);
  };

  // Without a stop: the reference.
  ModelMeasurer whole(model, 0);
  JournalMeasurer whole_journal(whole, path, header, false);
  Session whole_session(whole_journal, quiet());
  const SearchOutcome reference = run_search(whole_session, space, verification);
  ASSERT_FALSE(reference.interrupted);

  // Stopped after 7 jobs, then resumed.
  ModelMeasurer first(model, 0);
  first.interrupt_after(7);
  {
    JournalMeasurer journal(first, path, header, false);
    Session session(journal, quiet());
    EXPECT_TRUE(run_search(session, space, verification).interrupted);
  }
  ModelMeasurer second(model, 0);
  JournalMeasurer resumed(second, path, header, true);
  Session session(resumed, quiet());
  const SearchOutcome out = run_search(session, space, verification);
  EXPECT_FALSE(out.interrupted);
  EXPECT_EQ(out.chosen, reference.chosen);
  EXPECT_EQ(resumed.replayed(), 7);
  EXPECT_EQ(second.jobs(), whole.jobs() - 7);
  EXPECT_DOUBLE_EQ(out.seconds, reference.seconds);

  // Another search's journal is refused, naming what differs.
  ModelMeasurer third(model, 0);
  try {
    JournalMeasurer other(third, path, {{"mpftune_journal", 1}, {"quick", true}}, true);
    FAIL() << "a journal of another search was resumed";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("quick: true now, false in the journal"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mpf::tune::search
