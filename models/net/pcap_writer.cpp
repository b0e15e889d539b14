#include "pcap_writer.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace dpusim::net {

namespace {
void put16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(uint8_t(v));
  out.push_back(uint8_t(v >> 8));
}
void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
}  // namespace

PcapWriter::PcapWriter(const std::string& path) : file_(std::fopen(path.c_str(), "wb")) {
  if (!file_) throw std::runtime_error("cannot write pcap " + path + ": " + std::strerror(errno));
  std::vector<uint8_t> h;
  put32(h, kPcapMagicNanoseconds);
  put16(h, kPcapVersionMajor);
  put16(h, kPcapVersionMinor);
  put32(h, 0);  // thiszone: timestamps are simulated time from 0
  put32(h, 0);  // sigfigs
  put32(h, kPcapSnapLen);
  put32(h, kPcapLinkTypeEthernet);
  std::fwrite(h.data(), 1, h.size(), file_);
}

PcapWriter::~PcapWriter() {
  if (file_) std::fclose(file_);
}

void PcapWriter::write(uint64_t time_ps, const std::vector<uint8_t>& frame) {
  const uint64_t ns = time_ps / 1000;
  const uint32_t len = uint32_t(frame.size());
  const uint32_t caplen = len < kPcapSnapLen ? len : kPcapSnapLen;
  std::vector<uint8_t> r;
  put32(r, uint32_t(ns / 1000000000ull));
  put32(r, uint32_t(ns % 1000000000ull));
  put32(r, caplen);
  put32(r, len);
  std::fwrite(r.data(), 1, r.size(), file_);
  std::fwrite(frame.data(), 1, caplen, file_);
}

}  // namespace dpusim::net
