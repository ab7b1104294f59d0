#include "tune/search/journal.hpp"

#include <filesystem>

namespace mpf::tune::search {

namespace {

std::string job_key(const Config& config, const Probe& probe) { return describe(config) + " | " + probe.key(); }

nlohmann::json figures_json(const Figures& figures) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, f] : figures) {
    out.push_back({{"kernel", key.kernel},
                   {"op", key.op},
                   {"np", key.np},
                   {"bytes", key.bytes ? nlohmann::json(*key.bytes) : nlohmann::json(nullptr)},
                   {"unit", f.unit},
                   {"higher_is_better", f.higher_is_better},
                   {"samples", f.samples}});
  }
  return out;
}

Figures figures_from(const nlohmann::json& array) {
  Figures out;
  for (const nlohmann::json& p : array) {
    PointKey key{p.at("kernel").get<std::string>(), p.at("op").get<std::string>(), p.at("np").get<int>(),
                 p.at("bytes").is_null() ? std::nullopt : std::optional<long>(p.at("bytes").get<long>())};
    out[key] = one_job(p.at("unit").get<std::string>(), p.at("higher_is_better").get<bool>(),
                       p.at("samples").get<std::vector<double>>());
  }
  return out;
}

// What differs between two headers, as "quick: false here, true in the journal".
std::string differences(const nlohmann::json& mine, const nlohmann::json& theirs) {
  std::string out;
  for (const auto& [key, value] : mine.items()) {
    const auto it = theirs.find(key);
    if (it == theirs.end() || *it != value) {
      out += (out.empty() ? "" : "; ") + key + ": " + value.dump() + " now, " +
             (it == theirs.end() ? std::string("absent") : it->dump()) + " in the journal";
    }
  }
  return out;
}

}  // namespace

JournalMeasurer::JournalMeasurer(Measurer& inner, const std::string& path, const nlohmann::json& header, bool resume)
    : inner_(inner), path_(path) {
  if (resume) {
    std::ifstream in(path);
    if (!in) throw JournalError("--resume: there is no journal " + path + " to resume (no search was started there)");
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.empty()) continue;
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(line);
      } catch (const nlohmann::json::parse_error&) {
        // A line cut short when mpftune was killed while writing: the job
        // it would have recorded runs again.
        break;
      }
      try {
        if (number == 1) {
          if (j != header) {
            throw JournalError("--resume: the journal " + path + " belongs to another search (" +
                               differences(header, j) + "); start a new one without --resume");
          }
          continue;
        }
        Entry e;
        e.seconds = j.at("seconds").get<double>();
        e.failure = j.value("failure", "");
        e.figures = figures_from(j.at("figures"));
        entries_[{j.at("job").get<std::string>(), j.at("occurrence").get<int>()}] = std::move(e);
      } catch (const nlohmann::json::exception& e) {
        throw JournalError("--resume: line " + std::to_string(number) + " of " + path + " is not a job: " + e.what());
      }
    }
    if (number == 0) throw JournalError("--resume: the journal " + path + " is empty");
    out_.open(path, std::ios::app);
  } else {
    out_.open(path, std::ios::trunc);
    out_ << header.dump() << "\n";
    out_.flush();
  }
  if (!out_) throw JournalError("cannot write the journal " + path);
}

Figures JournalMeasurer::run(const Config& config, const Probe& probe) {
  const std::string key = job_key(config, probe);
  const int occurrence = asked_[key]++;
  if (const auto it = entries_.find({key, occurrence}); it != entries_.end()) {
    ++replayed_;
    replayed_seconds_ += it->second.seconds;
    if (!it->second.failure.empty()) throw MeasureError(it->second.failure);
    return it->second.figures;
  }
  const double before = inner_.spent();
  Entry e;
  try {
    e.figures = inner_.run(config, probe);
  } catch (const MeasureError& error) {
    e.failure = error.what();
  }
  e.seconds = inner_.spent() - before;
  nlohmann::json line = {
      {"job", key}, {"occurrence", occurrence}, {"seconds", e.seconds}, {"figures", figures_json(e.figures)}};
  if (!e.failure.empty()) line["failure"] = e.failure;
  out_ << line.dump() << "\n";
  out_.flush();
  entries_[{key, occurrence}] = e;
  if (!e.failure.empty()) throw MeasureError(e.failure);
  return e.figures;
}

}  // namespace mpf::tune::search
