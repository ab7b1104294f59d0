// Ascending numbers written the way people write rank and CPU lists:
// {0,1,2,3,5,7,8} -> "0-3,5,7-8". One writer for mpfrun's messages, its
// binding reports and mpfinspect's deadlock analysis.
#pragma once

#include <string>
#include <vector>

namespace mpf::common {

template <class Number>
std::string number_ranges(const std::vector<Number>& numbers) {
  std::string text;
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    if (!text.empty()) text += ",";
    text += std::to_string(numbers[i]);
    if (j > i) text += "-" + std::to_string(numbers[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace mpf::common
