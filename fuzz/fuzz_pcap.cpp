// Harness: the classic pcap reader (./dpusim p4 run's inputs). Any bytes are either read as
// records within the limits or refused with a message naming the problem; nothing crashes.
// link: dpusim_p4
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "dpusim/p4/pcap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpusim::p4;
  PcapFile file;
  std::string error;
  if (!parse_pcap(std::vector<uint8_t>(data, data + size), "input.pcap", &file, &error)) {
    if (error.empty()) std::abort();
    return 0;
  }
  size_t total = 0;
  for (const PcapRecord& r : file.records) {
    if (r.data.size() > PCAP_MAX_RECORD_BYTES) std::abort();
    total += r.data.size();
  }
  if (total > size) std::abort();  // records are never invented
  return 0;
}
