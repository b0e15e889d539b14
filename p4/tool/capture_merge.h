// The input ports' captures of `p4 switch --use-files` and `p4 run`, merged by timestamp as
// simple_switch's --use-files replays them, and streamed: each file is read in bounded chunks
// (PcapReader) and only its next frame is held, so memory does not grow with the captures.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dpusim/p4/pcap.h"

namespace dpusim::p4::tool {

class CaptureMerge {
 public:
  // Opens a port's capture and reads its first record; false with *error when the file
  // cannot be opened, its header is refused or its first record is damaged.
  bool add(std::uint32_t port, const std::string& path, std::string* error);
  // The next frame: the earliest of the files' next frames, a tie going to the lower port;
  // each file's frames stay in file order (a merge, not a sort). The frame's bytes stay
  // valid until the next call. kError stops at a damaged record, named in *error; every frame
  // handed out before it was whole.
  PcapReader::Next next(std::uint32_t* port, PcapView* frame, std::string* error);
  bool nanosecond() const { return nanosecond_; }

 private:
  struct Input {
    std::uint32_t port = 0;
    std::unique_ptr<PcapReader> reader;
    PcapView head;
    bool live = false;
  };
  bool advance(Input& in, std::string* error);

  std::vector<Input> inputs_;  // by port
  Input* taken_ = nullptr;     // the input whose head the last call handed out
  bool nanosecond_ = false;
};

}  // namespace dpusim::p4::tool
