// See capture_merge.h.
#include "capture_merge.h"

#include <algorithm>

namespace dpusim::p4::tool {

bool CaptureMerge::advance(Input& in, std::string* error) {
  switch (in.reader->next(&in.head, error)) {
    case PcapReader::Next::kRecord:
      in.live = true;
      return true;
    case PcapReader::Next::kEnd:
      in.live = false;
      in.reader.reset();  // its buffer goes back now
      return true;
    case PcapReader::Next::kError:
      break;
  }
  in.live = false;
  return false;
}

bool CaptureMerge::add(std::uint32_t port, const std::string& path, std::string* error) {
  Input in;
  in.port = port;
  in.reader = std::make_unique<PcapReader>();
  if (!in.reader->open(path, error)) return false;
  nanosecond_ = nanosecond_ || in.reader->nanosecond();
  if (!advance(in, error)) return false;
  taken_ = nullptr;
  auto at = std::find_if(inputs_.begin(), inputs_.end(), [&](const Input& i) { return i.port > port; });
  inputs_.insert(at, std::move(in));
  return true;
}

PcapReader::Next CaptureMerge::next(std::uint32_t* port, PcapView* frame, std::string* error) {
  if (taken_ != nullptr && !advance(*taken_, error)) return PcapReader::Next::kError;
  taken_ = nullptr;
  for (Input& in : inputs_)
    if (in.live && (taken_ == nullptr || in.head.ts_ns < taken_->head.ts_ns)) taken_ = &in;
  if (taken_ == nullptr) return PcapReader::Next::kEnd;
  *port = taken_->port;
  *frame = taken_->head;
  return PcapReader::Next::kRecord;
}

}  // namespace dpusim::p4::tool
