// `dpusim p4 run`: frames from two pcap files through the device's two ports.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "dpusim/p4/engine.h"
#include "dpusim/p4/rdma/program.h"
#include "dpusim/p4/pcap.h"
#include "tool.h"

namespace dpusim::p4::tool {

namespace {

struct Input {
  std::uint64_t ts_ns;
  std::uint32_t port;
  std::size_t index;  // order within its file
  const PcapRecord* record;
};

}  // namespace

int cmd_run(const std::vector<std::string>& args) {
  std::string prog, entries, in[2], out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = [&](std::string* dst) {
      if (i + 1 >= args.size() || !dst->empty()) return false;
      *dst = args[++i];
      return true;
    };
    bool ok;
    if (args[i] == "--entries") ok = value(&entries);
    else if (args[i] == "--in0") ok = value(&in[0]);
    else if (args[i] == "--in1") ok = value(&in[1]);
    else if (args[i] == "--out") ok = value(&out);
    else if (prog.empty() && args[i].rfind("--", 0) != 0) ok = (prog = args[i], true);
    else ok = false;
    if (!ok) {
      std::cerr << "dpusim p4 run: unexpected argument '" << args[i] << "'\n";
      return 2;
    }
  }
  if (prog.empty() || out.empty()) {
    std::cerr << "usage: dpusim p4 run PROG.json [--entries UPDATES.json] [--in0 HOST.pcap] [--in1 UPLINK.pcap] --out DIR\n";
    return 2;
  }
  LoadError error;
  auto engine = rdma::load_device_program_file(prog, &error);
  if (!engine) return refused(prog, error);
  if (!entries.empty()) {
    std::string text, perr;
    std::vector<TableUpdate> updates;
    if (!read_text(entries, &text)) {
      std::cerr << entries << ": cannot read\n";
      return 2;
    }
    if (!parse_updates(text, &updates, &perr)) {
      std::cerr << entries << ": " << perr << "\n";
      return 1;
    }
    for (std::size_t i = 0; i < updates.size(); ++i) {
      UpdateError ue;
      if (!engine->update(updates[i], &ue)) {
        std::cerr << entries << ": update " << i << " (" << update_type_name(updates[i].type) << "): error["
                  << update_code_name(ue.code) << "]: " << ue.message << "\n";
        return 1;
      }
    }
  }
  PcapFile files[2];
  bool nanosecond = false;
  std::vector<Input> inputs;
  for (std::uint32_t port = 0; port < 2; ++port) {
    if (in[port].empty()) continue;
    std::string perr;
    if (!read_pcap(in[port], &files[port], &perr)) {
      std::cerr << perr << "\n";
      return 2;
    }
    nanosecond = nanosecond || files[port].nanosecond;
    for (std::size_t k = 0; k < files[port].records.size(); ++k)
      inputs.push_back({files[port].records[k].ts_ns, port, k, &files[port].records[k]});
  }
  // Merged by timestamp; a tie goes to port 0, then to file order.
  std::stable_sort(inputs.begin(), inputs.end(), [](const Input& a, const Input& b) {
    if (a.ts_ns != b.ts_ns) return a.ts_ns < b.ts_ns;
    if (a.port != b.port) return a.port < b.port;
    return a.index < b.index;
  });
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) {
    std::cerr << out << ": cannot create the output folder: " << ec.message() << "\n";
    return 2;
  }
  PcapWriter writers[2];
  std::string werr;
  for (int port = 0; port < 2; ++port)
    if (!writers[port].open(out + "/port" + std::to_string(port) + ".pcap", nanosecond, &werr)) {
      std::cerr << werr << "\n";
      return 2;
    }
  Stats& stats = engine->mutable_stats();
  for (const Input& input : inputs) {
    const auto& frame = input.record->data;
    Verdict v = engine->process(input.port, frame.data(), frame.size());
    if (v.dropped) continue;
    if (!writers[v.port].write(input.ts_ns, v.data, v.size, &werr)) {
      std::cerr << werr << "\n";
      return 2;
    }
    // The capture files stand in for the device's two attachments.
    (v.port == P4_PORT_HOST ? stats.to_guest : stats.to_net)++;
  }
  for (auto& w : writers)
    if (!w.close(&werr)) {
      std::cerr << werr << "\n";
      return 2;
    }
  std::cout << stats.line() << "\n";
  return 0;
}

}  // namespace dpusim::p4::tool
