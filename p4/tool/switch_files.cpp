// `dpusim p4 switch` over capture files (see switch_files.h and cmd_switch.cpp).
//
// The input files are streamed and merged by timestamp (capture_merge.h: ties to the lower
// port, each file in its own order), each frame runs to completion, and every packet it
// causes is written to its port's file (through a bounded buffer) with the frame's
// timestamp. The engine's clock is the frames' time since the first one. A packet for a port no interface names leaves nowhere, as in simple_switch.
#include "switch_files.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

#include "dpusim/p4/cli.h"
#include "capture_merge.h"
#include "dpusim/p4/engine.h"
#include "tool.h"

namespace dpusim::p4::tool {

namespace {

bool file_exists(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  std::fclose(f);
  return true;
}

int run_commands(SwitchCli& cli, const std::string& path) {
  std::string text, out, error;
  if (!read_text(path, &text)) {
    std::cerr << path << ": cannot read\n";
    return 2;
  }
  bool ok = cli.run(text, &out, &error);
  std::cout << out;
  if (!ok) {
    std::cerr << path << ": " << error << "\n";
    return 1;
  }
  return 0;
}

// The frames of the merged captures, each run to completion: its packets written to their
// ports' files, its digests on stdout. False, with *error, at a damaged record or a failed write.
bool switch_frames(const SwitchOptions& o, CaptureMerge& inputs, const std::map<std::uint32_t, std::size_t>& by_port,
                   std::vector<std::unique_ptr<PcapWriter>>& out, Engine& engine, SwitchSummary* s, std::string* error) {
  std::uint32_t port = 0;
  PcapView frame;
  std::uint64_t origin = 0, now = 0;
  for (;;) {
    PcapReader::Next got = inputs.next(&port, &frame, error);
    if (got == PcapReader::Next::kEnd) return true;
    if (got == PcapReader::Next::kError) return false;
    if (s->frames_in++ == 0) origin = frame.ts_ns;
    // The engine's clock never goes back: a file whose timestamps do replays them at once,
    // as simple_switch sends a frame whose time has passed.
    if (frame.ts_ns > origin) now = std::max(now, frame.ts_ns - origin);
    const RunResult& r = engine.run(port, frame.data, frame.size, now);
    for (const OutputPacket& p : r.outputs) {
      auto it = by_port.find(p.port);
      if (it == by_port.end()) {
        ++s->unconnected;
        continue;
      }
      ++s->frames_out;
      if (!out[it->second]->write(frame.ts_ns, p.data, p.size, error)) return false;
    }
    for (const DigestMessage& d : r.digests) {
      std::cout << "digest " << d.list << ":";
      for (const auto& [name, value] : d.fields) std::cout << " " << name << "=" << value.to_hex();
      std::cout << "\n";
    }
    if (o.log_console)
      for (const std::string& line : r.logs) std::cerr << "log_msg: " << line << "\n";
  }
}

}  // namespace

int run_switch_files(const SwitchOptions& o, SwitchSummary* summary) {
  LoadOptions options;
  options.policy = PortPolicy::kV1Model;
  options.features = FeaturePolicy::kBmv2;  // simple_switch's features, with its own refusals
  LoadError error;
  auto engine = Engine::load_file(o.program, options, &error);
  if (!engine) return refused(o.program, error);
  engine->set_seed(o.seed);
  SwitchCli cli(*engine);
  if (!o.commands.empty())
    if (int rc = run_commands(cli, o.commands)) return rc;

  const std::size_t n = o.interfaces.size();
  CaptureMerge inputs;
  std::map<std::uint32_t, std::size_t> by_port;
  for (std::size_t k = 0; k < n; ++k) {
    const SwitchInterface& f = o.interfaces[k];
    by_port[f.port] = k;
    const std::string path = f.name + "_in.pcap";
    if (!file_exists(path)) continue;  // an interface with no input
    std::string perr;
    if (!inputs.add(f.port, path, &perr)) {
      std::cerr << perr << "\n";
      return 2;
    }
  }
  std::vector<std::unique_ptr<PcapWriter>> out(n);
  std::string werr;
  for (std::size_t k = 0; k < n; ++k) {
    out[k] = std::make_unique<PcapWriter>();
    if (!out[k]->open(o.interfaces[k].name + "_out.pcap", inputs.nanosecond(), &werr)) {
      std::cerr << werr << "\n";
      return 2;
    }
  }
  SwitchSummary s;
  std::string rerr;
  if (!switch_frames(o, inputs, by_port, out, *engine, &s, &rerr)) {
    std::cerr << rerr << "\n";
    for (auto& w : out) w->close(&werr);  // the frames before the damage stay written
    return 2;
  }
  for (auto& w : out)
    if (!w->close(&werr)) {
      std::cerr << werr << "\n";
      return 2;
    }
  if (!o.after.empty())
    if (int rc = run_commands(cli, o.after)) return rc;
  const Stats& st = engine->stats();
  if (!o.quiet)
    std::cerr << "dpusim p4 switch: " << s.frames_in << " frames in, " << s.frames_out << " out, " << st.dropped << " dropped, "
            << s.unconnected << " to ports with no interface, " << st.parse_errors << " parse errors, " << st.faults << " faults\n";
  if (summary) *summary = s;
  return 0;
}

}  // namespace dpusim::p4::tool
