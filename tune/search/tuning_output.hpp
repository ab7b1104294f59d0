// The tuning file a search writes: the values that differ from their
// defaults, and the machine they were measured on, in the format every job
// reads (common/tunables.hpp). Written whole or not at all: a job starting
// meanwhile reads the old file or the new one, never half of one.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tune/search/measure.hpp"

namespace mpf::tune::search {

nlohmann::json tuning_document(const Config& chosen, const std::string& date);

// Writes `document` to `path` (creating its directory); returns "" or what
// went wrong.
std::string write_tuning_file(const std::string& path, const nlohmann::json& document);

// Whether `path` can be written, checked before an hour of measuring: its
// directory exists (or can be created) and is writable. "" or why not.
std::string check_writable(const std::string& path);

}  // namespace mpf::tune::search
