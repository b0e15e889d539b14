// Harness: the numeric-format API (format and op codes, lengths, overlapping buffers). Every
// call returns a status; an ok result has exactly the promised length; nothing crashes.
// link: dpusim_formats
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "formats/formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpusim::formats;
  if (size < 4) return 0;
  const uint64_t src = data[0] % 8, dst = data[1] % 8, op = data[2] % 7;  // some out of range
  const size_t split = size > 4 ? data[3] % (size - 4 + 1) : 0;
  const uint8_t* body = data + 4;
  const size_t body_len = size - 4;
  size_t out_len = 0;
  if (converted_length(src, dst, body_len, &out_len) == Status::ok) {
    std::vector<uint8_t> out(out_len);
    const Status s = convert(src, dst, body, body_len, out.data(), out.size());
    if (s != Status::ok) std::abort();  // converted_length promised the lengths work
  } else {
    std::vector<uint8_t> out(body_len + 1);
    if (convert(src, dst, body, body_len, out.data(), out.size()) == Status::ok && out.size() != out_len) std::abort();
  }
  // apply over two halves (possibly unequal: refused), into a buffer of the first's length.
  std::vector<uint8_t> out(split);
  const Status s = apply(op, src, body, split, body + split, body_len - split, out.data(), out.size());
  if (s == Status::ok && split != body_len - split) std::abort();
  // In place: the destination is the first operand.
  std::vector<uint8_t> a(body, body + split);
  if (split && split * 2 <= body_len)
    (void)apply(op, src, a.data(), split, body + split, split, a.data(), a.size());
  if (status_message(s) == nullptr) std::abort();
  return 0;
}
