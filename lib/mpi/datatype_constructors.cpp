// Derived datatype constructors (MPI 3.1 §4.1.2-4.1.7): each builds its
// layout from "entries" — `count` copies of an old type, `stride` bytes
// apart, starting at byte `disp` — and flattens it at once: an old type
// that is one plain block becomes one strided block (a vector of a million
// ints is one Block, not a million), anything else is copied block by block.
// Each also records its arguments (TypeInfo::recipe) for the decoding calls
// (datatype_decoding.cpp). Also commit, free, dup, the size and extent
// queries, names and addresses.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "coll/pending.hpp"
#include "mpi/attributes.hpp"
#include "mpi/datatype.hpp"
#include "mpi/datatype_table.hpp"
#include "mpi/errors.hpp"

namespace mpf::mpi {
namespace {

std::int64_t round_up(std::int64_t n, std::int64_t to) { return (n + to - 1) / to * to; }

void add_block(std::vector<Block>& blocks, Block b) {
  if (b.bytes == 0 || b.count == 0) return;
  // Joins a plain block that starts where the previous plain one ends.
  if (!blocks.empty()) {
    Block& last = blocks.back();
    if (last.count == 1 && b.count == 1 && last.basic_size == b.basic_size && last.swap == b.swap &&
        last.offset + static_cast<std::int64_t>(last.bytes) == b.offset) {
      last.bytes += b.bytes;
      return;
    }
  }
  blocks.push_back(b);
}

}  // namespace

TypeInfo build(const std::vector<Entry>& entries, bool is_struct) {
  TypeInfo t;
  bool any = false;
  bool mixed = false;  // data of more than one predefined type
  for (const Entry& e : entries) {
    if (e.count == 0) continue;
    const TypeInfo& old = *e.type;
    const std::int64_t first = e.disp, last = e.disp + static_cast<std::int64_t>(e.count - 1) * e.stride;
    const std::int64_t lb = std::min(first, last) + old.lb, ub = std::max(first, last) + old.ub;
    t.lb = any ? std::min(t.lb, lb) : lb;
    t.ub = any ? std::max(t.ub, ub) : ub;
    if (old.basic == MPI_DATATYPE_NULL || (t.basic != MPI_DATATYPE_NULL && t.basic != old.basic)) mixed = true;
    if (t.basic == MPI_DATATYPE_NULL) t.basic = old.basic;
    any = true;
    t.size += e.count * old.size;
    t.basic_count += e.count * old.basic_count;
    t.alignment = std::max(t.alignment, old.alignment);
    if (old.blocks.size() == 1 && old.blocks[0].count == 1) {
      const Block& b = old.blocks[0];
      if (e.stride == static_cast<std::int64_t>(b.bytes)) {
        add_block(t.blocks, {e.disp + b.offset, b.bytes * e.count, 1, 0, b.basic_size, b.swap});
      } else if (e.count == 1) {
        add_block(t.blocks, {e.disp + b.offset, b.bytes, 1, 0, b.basic_size, b.swap});
      } else {
        add_block(t.blocks, {e.disp + b.offset, b.bytes, e.count, e.stride, b.basic_size, b.swap});
      }
      continue;
    }
    for (std::uint64_t k = 0; k < e.count; ++k) {
      for (const Block& b : old.blocks) {
        add_block(t.blocks, {e.disp + static_cast<std::int64_t>(k) * e.stride + b.offset, b.bytes, b.count, b.stride,
                             b.basic_size, b.swap});
      }
    }
  }
  if (mixed) {
    t.basic = MPI_DATATYPE_NULL;
    t.basic_count = 0;
  }
  if (is_struct && any) t.ub = t.lb + round_up(t.ub - t.lb, t.alignment);
  bool have_true = false;
  for (const Block& b : t.blocks) {
    const std::int64_t a = b.offset, z = b.offset + static_cast<std::int64_t>(b.count - 1) * b.stride;
    const std::int64_t lo = std::min(a, z), hi = std::max(a, z) + static_cast<std::int64_t>(b.bytes);
    t.true_lb = have_true ? std::min(t.true_lb, lo) : lo;
    t.true_ub = have_true ? std::max(t.true_ub, hi) : hi;
    have_true = true;
  }
  set_bounds(t, t.lb, t.extent());
  if (t.basic != MPI_DATATYPE_NULL) {
    t.signature = find_type(t.basic)->signature;
  } else {
    std::uint32_t hash = 2166136261u;  // FNV-1a over the element's pieces in order
    for (const Block& b : t.blocks) {
      for (std::uint64_t v : {std::uint64_t{b.basic_size}, b.bytes, b.count}) {
        for (int i = 0; i < 8; ++i, v >>= 8) hash = (hash ^ (v & 0xffu)) * 16777619u;
      }
    }
    t.signature = static_cast<std::uint16_t>(0x8000u | (hash & 0x7fffu));
  }
  return t;
}

void set_bounds(TypeInfo& t, std::int64_t lb, std::int64_t extent) {
  t.lb = lb;
  t.ub = lb + extent;
  t.contiguous = t.size == 0 || (t.blocks.size() == 1 && t.blocks[0].count == 1 && t.blocks[0].offset == 0 &&
                                 t.blocks[0].bytes == t.size && extent == static_cast<std::int64_t>(t.size));
}

int subarray_layout(const char* call, int ndims, const MPI_Count sizes[], const MPI_Count subsizes[],
                    const MPI_Count starts[], int order, const TypeInfo& old, TypeInfo* out) {
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    return type_error(call, MPI_ERR_ARG, "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN, not " + std::to_string(order));
  }
  for (int d = 0; d < ndims; ++d) {
    if (sizes[d] <= 0 || subsizes[d] <= 0 || subsizes[d] > sizes[d] || starts[d] < 0 || starts[d] > sizes[d] - subsizes[d]) {
      return type_error(call, MPI_ERR_ARG,
                        "dimension " + std::to_string(d) + ": size " + std::to_string(sizes[d]) + ", subsize " +
                            std::to_string(subsizes[d]) + ", start " + std::to_string(starts[d]) +
                            " (need 0 < subsize <= size and 0 <= start <= size - subsize)");
    }
  }
  // From the fastest-varying dimension outwards: each level is `subsize`
  // copies of the level inside it, a whole row of that dimension apart.
  std::vector<int> dims(static_cast<std::size_t>(ndims));
  std::iota(dims.begin(), dims.end(), 0);
  if (order == MPI_ORDER_C) std::reverse(dims.begin(), dims.end());
  TypeInfo level = old;
  std::int64_t stride = old.extent();
  std::int64_t offset = 0;
  for (int d : dims) {
    const Entry e{0, static_cast<std::uint64_t>(subsizes[d]), &level, stride};
    if (int rc = check_large_entry(call, e, ("array_of_subsizes[" + std::to_string(d) + "]").c_str())) return rc;
    level = build({e}, false);
    offset += starts[d] * stride;
    stride *= sizes[d];
  }
  *out = build({{offset, 1, &level, 0}}, false);
  // The whole array's extent from 0, where the standard's Subarray() puts
  // its bounds whatever the old type's: a subarray type steps over whole
  // arrays.
  set_bounds(*out, 0, stride);
  return MPI_SUCCESS;
}

int check_large_entry(const char* call, const Entry& e, const char* what) {
  const TypeInfo& t = *e.type;
  const bool one_block = t.blocks.size() == 1 && t.blocks[0].count == 1;
  if (e.count <= static_cast<std::uint64_t>(INT_MAX) || one_block) return MPI_SUCCESS;
  return type_error(call, MPI_ERR_COUNT,
                    std::string(what) + " = " + std::to_string(e.count) + " is above INT_MAX (" +
                        std::to_string(INT_MAX) + ") and its elements are not one contiguous piece each (" +
                        std::to_string(t.blocks.size()) +
                        " blocks): such a count is taken only of a type whose data is one block, which it "
                        "repeats in place; build the type in two levels, each count at most INT_MAX");
}

namespace {

// Types the program freed while nonblocking collectives it had started
// were in flight. Those look their types up by handle (a user operation
// gets the program's own handle), so such entries stay until no collective
// is pending; handles are never reused, so a late drop harms nothing.
std::vector<MPI_Datatype> g_freed_in_flight;

void drop_freed_types() {
  if (g_freed_in_flight.empty() || !coll::pending_idle()) return;
  for (MPI_Datatype h : g_freed_in_flight) type_table()[static_cast<std::size_t>(h)].reset();
  g_freed_in_flight.clear();
}

}  // namespace

MPI_Datatype add_type(TypeInfo t) {
  drop_freed_types();
  auto& table = type_table();
  table.push_back(std::make_shared<TypeInfo>(std::move(t)));
  return static_cast<MPI_Datatype>(table.size() - 1);
}

TypeArgument type_argument(MPI_Datatype handle) {
  const TypeInfo* t = find_type(handle);
  if (t->predefined) return {handle, nullptr};
  return {handle, share_type(handle)};
}

int type_error(const char* call, int error_class, const std::string& detail) {
  return comm_error(call, MPI_COMM_WORLD, error_class, detail);
}

// The old type of a constructor: any valid type, committed or not.
int old_type(const char* call, MPI_Datatype handle, const TypeInfo** out) {
  *out = find_type(handle);
  if (*out == nullptr) return type_error(call, MPI_ERR_TYPE, "invalid old datatype " + datatype_name(handle));
  return MPI_SUCCESS;
}

namespace {

int check_count(const char* call, int count, const char* what = "count") {
  if (count < 0) return type_error(call, MPI_ERR_COUNT, std::string("negative ") + what + " " + std::to_string(count));
  return MPI_SUCCESS;
}

}  // namespace

int check_out(const char* call, const void* out) {
  return out == nullptr ? type_error(call, MPI_ERR_ARG, "newtype argument is NULL") : MPI_SUCCESS;
}

namespace {

// Blocks of `lengths[i]` (or `constant_length`) old elements at byte
// displacements `byte_displs[i]`, or `elem_displs[i]` old extents: the four
// indexed constructors, told apart by `combiner`.
int indexed(const char* call, int combiner, int count, const int lengths[], const MPI_Aint* byte_displs,
            const int* elem_displs, int constant_length, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  require_initialized(call);
  const TypeInfo* old = nullptr;
  if (int rc = check_count(call, count)) return rc;
  if (int rc = old_type(call, oldtype, &old)) return rc;
  if (int rc = check_out(call, newtype)) return rc;
  if (count > 0 && ((lengths == nullptr && constant_length < 0) || (byte_displs == nullptr && elem_displs == nullptr))) {
    return type_error(call, MPI_ERR_ARG, "a block length or displacement array is NULL");
  }
  std::vector<Entry> entries;
  for (int i = 0; i < count; ++i) {
    const int len = constant_length >= 0 ? constant_length : lengths[i];
    if (len < 0) return type_error(call, MPI_ERR_ARG, "negative block length " + std::to_string(len) + " for block " + std::to_string(i));
    const std::int64_t disp = byte_displs != nullptr ? byte_displs[i] : static_cast<std::int64_t>(elem_displs[i]) * old->extent();
    entries.push_back({disp, static_cast<std::uint64_t>(len), old, old->extent()});
  }
  TypeInfo t = build(entries, false);
  // MPI 3.1 §4.1.13: count, then the block length(s), then integer
  // displacements; byte displacements are the addresses.
  t.recipe = {combiner, {count}, {}, {type_argument(oldtype)}};
  std::vector<int>& ints = t.recipe.integers;
  if (constant_length >= 0) {
    ints.push_back(constant_length);
  } else if (count > 0) {
    ints.insert(ints.end(), lengths, lengths + count);
  }
  if (count > 0 && elem_displs != nullptr) ints.insert(ints.end(), elem_displs, elem_displs + count);
  if (count > 0 && byte_displs != nullptr) t.recipe.addresses.assign(byte_displs, byte_displs + count);
  *newtype = add_type(std::move(t));
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_contiguous";
  require_initialized(call);
  const TypeInfo* old = nullptr;
  if (int rc = check_count(call, count)) return rc;
  if (int rc = old_type(call, oldtype, &old)) return rc;
  if (int rc = check_out(call, newtype)) return rc;
  TypeInfo t = build({{0, static_cast<std::uint64_t>(count), old, old->extent()}}, false);
  t.recipe = {MPI_COMBINER_CONTIGUOUS, {count}, {}, {type_argument(oldtype)}};
  *newtype = add_type(std::move(t));
  return MPI_SUCCESS;
}

static int vector_impl(const char* call, int count, int blocklength, std::int64_t stride_bytes, bool stride_in_elements,
                       MPI_Datatype oldtype, MPI_Datatype* newtype) {
  require_initialized(call);
  const TypeInfo* old = nullptr;
  if (int rc = check_count(call, count)) return rc;
  if (int rc = check_count(call, blocklength, "block length")) return rc;
  if (int rc = old_type(call, oldtype, &old)) return rc;
  if (int rc = check_out(call, newtype)) return rc;
  const TypeInfo block = build({{0, static_cast<std::uint64_t>(blocklength), old, old->extent()}}, false);
  const std::int64_t stride = stride_in_elements ? stride_bytes * old->extent() : stride_bytes;
  TypeInfo t = build({{0, static_cast<std::uint64_t>(count), &block, stride}}, false);
  if (stride_in_elements) {
    t.recipe = {MPI_COMBINER_VECTOR, {count, blocklength, static_cast<int>(stride_bytes)}, {}, {type_argument(oldtype)}};
  } else {
    t.recipe = {MPI_COMBINER_HVECTOR, {count, blocklength}, {stride_bytes}, {type_argument(oldtype)}};
  }
  *newtype = add_type(std::move(t));
  return MPI_SUCCESS;
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return vector_impl("MPI_Type_vector", count, blocklength, stride, true, oldtype, newtype);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return vector_impl("MPI_Type_create_hvector", count, blocklength, stride, false, oldtype, newtype);
}

int PMPI_Type_indexed(int count, const int blocklengths[], const int displacements[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  return indexed("MPI_Type_indexed", MPI_COMBINER_INDEXED, count, blocklengths, nullptr, displacements, -1, oldtype,
                 newtype);
}

int PMPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count, blocklengths, displacements, nullptr, -1,
                 oldtype, newtype);
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  if (blocklength < 0) return type_error("MPI_Type_create_indexed_block", MPI_ERR_ARG, "negative block length " + std::to_string(blocklength));
  return indexed("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK, count, nullptr, nullptr, displacements,
                 blocklength, oldtype, newtype);
}

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype* newtype) {
  if (blocklength < 0) return type_error("MPI_Type_create_hindexed_block", MPI_ERR_ARG, "negative block length " + std::to_string(blocklength));
  return indexed("MPI_Type_create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, count, nullptr, displacements, nullptr,
                 blocklength, oldtype, newtype);
}

int PMPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                            const MPI_Datatype types[], MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_struct";
  require_initialized(call);
  if (int rc = check_count(call, count)) return rc;
  if (int rc = check_out(call, newtype)) return rc;
  if (count > 0 && (blocklengths == nullptr || displacements == nullptr || types == nullptr)) {
    return type_error(call, MPI_ERR_ARG, "a block length, displacement or type array is NULL");
  }
  std::vector<Entry> entries;
  for (int i = 0; i < count; ++i) {
    const TypeInfo* old = nullptr;
    if (int rc = old_type(call, types[i], &old)) return rc;
    if (blocklengths[i] < 0) return type_error(call, MPI_ERR_ARG, "negative block length for block " + std::to_string(i));
    entries.push_back({displacements[i], static_cast<std::uint64_t>(blocklengths[i]), old, old->extent()});
  }
  TypeInfo t = build(entries, true);
  t.recipe = {MPI_COMBINER_STRUCT, {count}, {}, {}};
  if (count > 0) {
    t.recipe.integers.insert(t.recipe.integers.end(), blocklengths, blocklengths + count);
    t.recipe.addresses.assign(displacements, displacements + count);
  }
  for (int i = 0; i < count; ++i) t.recipe.types.push_back(type_argument(types[i]));
  *newtype = add_type(std::move(t));
  return MPI_SUCCESS;
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_resized";
  require_initialized(call);
  const TypeInfo* old = nullptr;
  if (int rc = old_type(call, oldtype, &old)) return rc;
  if (int rc = check_out(call, newtype)) return rc;
  TypeInfo t = *old;
  t.name.clear();
  t.predefined = t.committed = false;
  set_bounds(t, lb, extent);
  t.recipe = {MPI_COMBINER_RESIZED, {}, {lb, extent}, {type_argument(oldtype)}};
  *newtype = add_type(std::move(t));
  return MPI_SUCCESS;
}

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_subarray";
  require_initialized(call);
  const TypeInfo* old = nullptr;
  if (int rc = old_type(call, oldtype, &old)) return rc;
  if (int rc = check_out(call, newtype)) return rc;
  if (ndims <= 0 || sizes == nullptr || subsizes == nullptr || starts == nullptr) {
    return type_error(call, MPI_ERR_ARG, "ndims " + std::to_string(ndims) + " must be positive, with non-NULL arrays");
  }
  const std::vector<MPI_Count> wide_sizes(sizes, sizes + ndims), wide_subsizes(subsizes, subsizes + ndims),
      wide_starts(starts, starts + ndims);
  TypeInfo t;
  if (int rc = subarray_layout(call, ndims, wide_sizes.data(), wide_subsizes.data(), wide_starts.data(), order, *old,
                               &t)) {
    return rc;
  }
  t.recipe = {MPI_COMBINER_SUBARRAY, {ndims}, {}, {type_argument(oldtype)}};
  for (const int* a : {sizes, subsizes, starts}) t.recipe.integers.insert(t.recipe.integers.end(), a, a + ndims);
  t.recipe.integers.push_back(order);
  *newtype = add_type(std::move(t));
  return MPI_SUCCESS;
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const TypeInfo* old = nullptr;
  if (int rc = old_type("MPI_Type_dup", oldtype, &old)) return rc;
  if (int rc = check_out("MPI_Type_dup", newtype)) return rc;
  TypeInfo t = *old;
  t.predefined = false;
  t.recipe = {MPI_COMBINER_DUP, {}, {}, {type_argument(oldtype)}};
  *newtype = add_type(std::move(t));
  if (int rc = copy_type_attributes(oldtype, *newtype)) {
    return type_error("MPI_Type_dup", rc, "an attribute copy callback failed with error " + std::to_string(rc));
  }
  return MPI_SUCCESS;
}

int PMPI_Type_commit(MPI_Datatype* datatype) {
  if (datatype == nullptr || find_type(*datatype) == nullptr) {
    return type_error("MPI_Type_commit", MPI_ERR_TYPE,
                      "invalid datatype " + datatype_name(datatype == nullptr ? MPI_DATATYPE_NULL : *datatype));
  }
  type_table()[static_cast<std::size_t>(*datatype)]->committed = true;
  return MPI_SUCCESS;
}

int PMPI_Type_free(MPI_Datatype* datatype) {
  if (datatype == nullptr || find_type(*datatype) == nullptr) {
    return type_error("MPI_Type_free", MPI_ERR_TYPE,
                      "invalid datatype " + datatype_name(datatype == nullptr ? MPI_DATATYPE_NULL : *datatype));
  }
  if (find_type(*datatype)->predefined) {
    return type_error("MPI_Type_free", MPI_ERR_TYPE, datatype_name(*datatype) + " is predefined and cannot be freed");
  }
  if (int rc = delete_type_attributes(*datatype)) {
    return type_error("MPI_Type_free", rc, "an attribute delete callback failed with error " + std::to_string(rc));
  }
  // Point-to-point operations already started keep their own copy of the
  // layout; nonblocking collectives need the entry (g_freed_in_flight).
  drop_freed_types();
  if (mpf::coll::pending_idle()) {
    type_table()[static_cast<std::size_t>(*datatype)].reset();
  } else {
    g_freed_in_flight.push_back(*datatype);
  }
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

static int query(const char* call, MPI_Datatype datatype, const TypeInfo** t) {
  *t = find_type(datatype);
  if (*t == nullptr) return type_error(call, MPI_ERR_TYPE, "invalid datatype " + datatype_name(datatype));
  return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  const TypeInfo* t = nullptr;
  if (int rc = query("MPI_Type_size", datatype, &t)) return rc;
  *size = t->size > static_cast<std::uint64_t>(INT32_MAX) ? MPI_UNDEFINED : static_cast<int>(t->size);
  return MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  const TypeInfo* t = nullptr;
  if (int rc = query("MPI_Type_size_x", datatype, &t)) return rc;
  *size = static_cast<MPI_Count>(t->size);
  return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  const TypeInfo* t = nullptr;
  if (int rc = query("MPI_Type_get_extent", datatype, &t)) return rc;
  *lb = t->lb;
  *extent = t->extent();
  return MPI_SUCCESS;
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  const TypeInfo* t = nullptr;
  if (int rc = query("MPI_Type_get_extent_x", datatype, &t)) return rc;
  *lb = t->lb;
  *extent = t->extent();
  return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  const TypeInfo* t = nullptr;
  if (int rc = query("MPI_Type_get_true_extent", datatype, &t)) return rc;
  *true_lb = t->true_lb;
  *true_extent = t->true_ub - t->true_lb;
  return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  const TypeInfo* t = nullptr;
  if (int rc = query("MPI_Type_get_true_extent_x", datatype, &t)) return rc;
  *true_lb = t->true_lb;
  *true_extent = t->true_ub - t->true_lb;
  return MPI_SUCCESS;
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char* name) {
  const TypeInfo* t = nullptr;
  if (int rc = query("MPI_Type_set_name", datatype, &t)) return rc;
  if (name == nullptr) return type_error("MPI_Type_set_name", MPI_ERR_ARG, "name is NULL");
  type_table()[static_cast<std::size_t>(datatype)]->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int PMPI_Type_get_name(MPI_Datatype datatype, char* name, int* resultlen) {
  const TypeInfo* t = nullptr;
  if (int rc = query("MPI_Type_get_name", datatype, &t)) return rc;
  std::memcpy(name, t->name.c_str(), t->name.size() + 1);
  *resultlen = static_cast<int>(t->name.size());
  return MPI_SUCCESS;
}

int PMPI_Get_address(const void* location, MPI_Aint* address) {
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return addr1 - addr2; }

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
#pragma weak MPI_Type_vector = PMPI_Type_vector
#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
#pragma weak MPI_Type_indexed = PMPI_Type_indexed
#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
#pragma weak MPI_Type_dup = PMPI_Type_dup
#pragma weak MPI_Type_commit = PMPI_Type_commit
#pragma weak MPI_Type_free = PMPI_Type_free
#pragma weak MPI_Type_size = PMPI_Type_size
#pragma weak MPI_Type_size_x = PMPI_Type_size_x
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
#pragma weak MPI_Type_set_name = PMPI_Type_set_name
#pragma weak MPI_Type_get_name = PMPI_Type_get_name
#pragma weak MPI_Get_address = PMPI_Get_address
#pragma weak MPI_Aint_add = PMPI_Aint_add
#pragma weak MPI_Aint_diff = PMPI_Aint_diff

}  // extern "C"
