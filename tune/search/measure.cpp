#include "tune/search/measure.hpp"

#include "tune/bench/report.hpp"

namespace mpf::tune::search {

std::string describe(const Config& config) {
  if (config.empty()) return "defaults";
  std::string out;
  for (const auto& [name, value] : config) out += (out.empty() ? "" : " ") + name + "=" + value;
  return out;
}

Config with(Config base, const std::string& name, const std::string& value) {
  base[name] = value;
  return base;
}

namespace {

std::string sizes_text(const std::vector<long>& sizes) {
  std::string out;
  for (const long s : sizes) out += (out.empty() ? "" : ",") + bench::format_bytes(s);
  return out;
}

std::string joined(const std::vector<std::string>& words, const char* separator) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

}  // namespace

std::vector<std::string> Probe::kernel_args() const {
  std::vector<std::string> out;
  if (!sizes.empty()) out.insert(out.end(), {"--sizes", sizes_text(sizes)});
  if (!ops.empty()) out.insert(out.end(), {"--ops", joined(ops, ",")});
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

std::string Probe::key() const {
  return kernel + " np=" + std::to_string(np) + " sizes=" + sizes_text(sizes) + " ops=" + joined(ops, ",") +
         " args=" + joined(args, " ");
}

std::string point_name(const PointKey& key) {
  std::string out = key.kernel;
  if (key.op != "-") out += " " + key.op;
  if (key.bytes) out += " " + bench::format_bytes(*key.bytes);
  return out + " np " + std::to_string(key.np);
}

Figure one_job(std::string unit, bool higher_is_better, std::vector<double> samples) {
  Figure f{std::move(unit), higher_is_better, std::move(samples), {}};
  if (!f.samples.empty()) f.job_medians.push_back(bench::summarise(f.samples).median);
  return f;
}

void pool(Figures& into, const Figures& more) {
  for (const auto& [key, figure] : more) {
    auto [it, fresh] = into.try_emplace(key, figure);
    if (fresh) continue;
    Figure& f = it->second;
    f.samples.insert(f.samples.end(), figure.samples.begin(), figure.samples.end());
    f.job_medians.insert(f.job_medians.end(), figure.job_medians.begin(), figure.job_medians.end());
  }
}

}  // namespace mpf::tune::search
