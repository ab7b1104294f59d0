#include "symmetric/allocator.hpp"

#include <algorithm>
#include <iterator>

namespace mpf::symmetric {
namespace {

std::uint64_t round_up(std::uint64_t n, std::uint64_t unit) { return (n + unit - 1) / unit * unit; }

}  // namespace

Allocator::Allocator(std::uint64_t capacity) : capacity_(capacity / kAlignment * kAlignment) {
  if (capacity_ > 0) free_.emplace(0, capacity_);
}

std::optional<std::uint64_t> Allocator::allocate(std::uint64_t bytes, std::uint64_t alignment) {
  alignment = std::max(alignment, kAlignment);
  if (bytes > capacity_) return std::nullopt;
  const std::uint64_t size = round_up(std::max<std::uint64_t>(bytes, 1), kAlignment);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const auto [start, length] = *it;
    const std::uint64_t at = round_up(start, alignment);
    if (at + size > start + length || at < start) continue;
    free_.erase(it);
    if (at > start) free_.emplace(start, at - start);
    if (at + size < start + length) free_.emplace(at + size, start + length - at - size);
    live_.emplace(at, size);
    in_use_ += size;
    return at;
  }
  return std::nullopt;
}

bool Allocator::release(std::uint64_t offset) {
  const auto it = live_.find(offset);
  if (it == live_.end()) return false;
  const std::uint64_t size = it->second;
  live_.erase(it);
  in_use_ -= size;
  add_free(offset, size);
  return true;
}

bool Allocator::resize_in_place(std::uint64_t offset, std::uint64_t bytes) {
  const auto it = live_.find(offset);
  if (it == live_.end()) return false;
  const std::uint64_t old_size = it->second;
  const std::uint64_t size = round_up(std::max<std::uint64_t>(bytes, 1), kAlignment);
  if (size == old_size) return true;
  if (size < old_size) {
    it->second = size;
    in_use_ -= old_size - size;
    add_free(offset + size, old_size - size);
    return true;
  }
  const auto next = free_.find(offset + old_size);
  if (next == free_.end() || old_size + next->second < size) return false;
  const std::uint64_t left = old_size + next->second - size;
  free_.erase(next);
  if (left > 0) free_.emplace(offset + size, left);
  it->second = size;
  in_use_ += size - old_size;
  return true;
}

std::uint64_t Allocator::size_of(std::uint64_t offset) const {
  const auto it = live_.find(offset);
  return it == live_.end() ? 0 : it->second;
}

std::uint64_t Allocator::largest_free() const {
  std::uint64_t largest = 0;
  for (const auto& [offset, bytes] : free_) largest = std::max(largest, bytes);
  return largest;
}

void Allocator::add_free(std::uint64_t offset, std::uint64_t bytes) {
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && next->first == offset + bytes) {
    bytes += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    const auto before = std::prev(next);
    if (before->first + before->second == offset) {
      before->second += bytes;
      return;
    }
  }
  free_.emplace(offset, bytes);
}

}  // namespace mpf::symmetric
