#include "tune/search/tuning_output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/tunables.hpp"
#include "tune/search/space.hpp"

namespace mpf::tune::search {

namespace fs = std::filesystem;

nlohmann::json tuning_document(const Config& chosen, const std::string& date) {
  nlohmann::json tunables = nlohmann::json::object();
  for (const auto& [name, value] : chosen) tunables[name] = value;
  return {{"mpf_tuning_version", common::kTuningFileVersion},
          {"machine", common::tuning_file_machine(common::MachineFingerprint::current(), date)},
          {"tunables", tunables}};
}

std::string check_writable(const std::string& path) {
  const fs::path parent = fs::absolute(path).parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) return "cannot create directory " + parent.string() + ": " + ec.message();
  if (::access(parent.c_str(), W_OK) != 0) {
    return "directory " + parent.string() + " is not writable: " + std::strerror(errno);
  }
  return "";
}

std::string write_tuning_file(const std::string& path, const nlohmann::json& document) {
  if (std::string why = check_writable(path); !why.empty()) return why;
  const std::string temporary = path + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << document.dump(2) << "\n";
    out.close();
    if (!out) return "cannot write " + temporary;
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) return "cannot rename " + temporary + " to " + path + ": " + ec.message();
  return "";
}

}  // namespace mpf::tune::search
