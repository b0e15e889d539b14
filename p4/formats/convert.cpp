// Buffer conversion between any two formats: decode to binary32 (exact), round once to the
// destination. One loop per (source, destination) pair so the formats are compile-time
// constants in the hot path.
#include <array>
#include <utility>

#include "decode_tables.h"
#include "element_io.h"
#include "encode_binary32.h"
#include "formats.h"

namespace dpusim::formats {
namespace detail {
namespace {

template <Format S, Format D>
void convert_elements(const uint8_t* src, uint8_t* dst, size_t count, const DecodeTables& t) {
  if constexpr (D == Format::fp4_e2m1) {
    // count is even (checked): an element pair per destination byte.
    for (size_t i = 0; i < count; i += 2) {
      const uint32_t even = encode_binary32<D>(to_binary32<S>(t, load<S>(src, i)));
      const uint32_t odd = encode_binary32<D>(to_binary32<S>(t, load<S>(src, i + 1)));
      store_fp4_pair(dst, i, even, odd);
    }
  } else {
    for (size_t i = 0; i < count; ++i) {
      store<D>(dst, i, encode_binary32<D>(to_binary32<S>(t, load<S>(src, i))));
    }
  }
}

using ConvertFn = void (*)(const uint8_t*, uint8_t*, size_t, const DecodeTables&);

template <size_t... I>
constexpr std::array<ConvertFn, sizeof...(I)> make_converters(std::index_sequence<I...>) {
  return {&convert_elements<static_cast<Format>(I / kFormatCount),
                            static_cast<Format>(I % kFormatCount)>...};
}

// Indexed by source * kFormatCount + destination.
constexpr auto kConverters =
    make_converters(std::make_index_sequence<kFormatCount * kFormatCount>{});

}  // namespace
}  // namespace detail

Status convert(Format src, Format dst, const uint8_t* src_data, size_t src_bytes, uint8_t* dst_data,
               size_t dst_bytes) noexcept {
  size_t expected = 0;
  if (Status s = converted_length(src, dst, src_bytes, &expected); s != Status::ok) return s;
  if (dst_bytes != expected) return Status::dst_length_mismatch;
  // In place is safe only element for element: the same address and the same width.
  const bool in_place = dst_data == src_data && spec(src).bits == spec(dst).bits;
  if (!in_place && detail::overlap(src_data, src_bytes, dst_data, dst_bytes)) {
    return Status::overlapping_buffers;
  }
  size_t count = 0;
  (void)element_count(src, src_bytes, &count);  // cannot fail after converted_length
  if (count == 0) return Status::ok;
  const auto convert_fn =
      detail::kConverters[static_cast<unsigned>(src) * kFormatCount + static_cast<unsigned>(dst)];
  convert_fn(src_data, dst_data, count, detail::decode_tables());
  return Status::ok;
}

Status convert(uint64_t src_code, uint64_t dst_code, const uint8_t* src_data, size_t src_bytes,
               uint8_t* dst_data, size_t dst_bytes) noexcept {
  const auto src = format_from_code(src_code);
  const auto dst = format_from_code(dst_code);
  if (!src || !dst) return Status::unknown_format;
  return convert(*src, *dst, src_data, src_bytes, dst_data, dst_bytes);
}

}  // namespace dpusim::formats
