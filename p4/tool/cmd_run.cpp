// `dpusim p4 run`: frames from two pcap files through the device's two ports, and work
// requests through its RDMA path (rdma_work.h), with the fp8 unit the option names.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "capture_merge.h"
#include "dpusim/p4/engine.h"
#include "dpusim/p4/pcap.h"
#include "dpusim/p4/rdma/program.h"
#include "rdma_work.h"
#include "rtl/fp8_impl.h"
#include "tool.h"

namespace dpusim::p4::tool {

// The work requests through the RDMA path: DIR/rdma.jsonl gets one line per request (its
// decision) and the denial log's lines in order, DIR/memory.bin the window afterwards.
int run_rdma(Engine& engine, RdmaWork& work, rdma::Fp8Backend& backend, const std::string& out) {
  const std::string log_path = out + "/rdma.jsonl";
  std::ofstream log(log_path, std::ios::binary);
  rdma::RdmaPath path([&](std::uint64_t t, const std::string& line) {
    log << nlohmann::ordered_json{{"time_ps", t}, {"log", line}}.dump() << "\n";
  });
  path.set_fp8_backend(&backend);
  LoadError error;
  if (!path.attach(&engine, &error)) {
    std::cerr << "the RDMA path refused the program: error[" << load_code_name(error.code) << "]: " << error.message << "\n";
    return 1;
  }
  std::uint64_t cycles = 0;
  for (std::size_t i = 0; i < work.requests.size(); ++i) {
    const rdma::Decision d = path.post_send(work.requests[i].wr, work.requests[i].time_ps, *work.memory);
    cycles += d.fp8_cycles;
    log << nlohmann::ordered_json{{"wr", i},
                          {"time_ps", work.requests[i].time_ps},
                          {"action", rdma::action_name(d.action)},
                          {"status", rdma::wc_status_name(d.status)},
                          {"reason", rdma::fail_reason_name(d.reason)},
                          {"message", d.message},
                          {"fp8_cycles", d.fp8_cycles},
                          {"fp8_busy_ps", d.fp8_busy_ps}}
               .dump()
        << "\n";
  }
  std::vector<std::uint8_t> bytes(work.memory->size());
  work.memory->peek(work.memory->base(), bytes.data(), bytes.size());
  std::ofstream mem(out + "/memory.bin", std::ios::binary);
  mem.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!log.flush() || !mem.flush()) {
    std::cerr << out << ": cannot write rdma.jsonl or memory.bin\n";
    return 2;
  }
  const rdma::RdmaStats& s = path.stats();
  std::cout << "RDMA stats: work_requests=" << s.work_requests << " runs=" << s.runs << " dispatched=" << s.dispatched
            << " denied=" << s.denied << " done=" << s.done << " failed=" << s.failed << " declined=" << s.declined
            << " fp8_impl=" << backend.implementation() << " fp8_cycles=" << cycles << "\n";
  return 0;
}

// The captures' frames through the device's ports, streamed; false, with *error, at a
// damaged record or a failed write.
bool run_frames(Engine& engine, CaptureMerge& inputs, PcapWriter (&writers)[2], std::string* error) {
  Stats& stats = engine.mutable_stats();
  std::uint32_t port = 0;
  PcapView frame;
  for (;;) {
    PcapReader::Next got = inputs.next(&port, &frame, error);
    if (got == PcapReader::Next::kEnd) return true;
    if (got == PcapReader::Next::kError) return false;
    Verdict v = engine.process(port, frame.data, frame.size);
    if (v.dropped) continue;
    if (!writers[v.port].write(frame.ts_ns, v.data, v.size, error)) return false;
    // The capture files stand in for the device's two attachments.
    (v.port == P4_PORT_HOST ? stats.to_guest : stats.to_net)++;
  }
}

// The steps of `p4 run`, each returning its exit status (0: go on). Named apart from the
// other commands' helpers, with which a unity batch compiles this.
namespace run_steps {

struct RunArgs {
  std::string prog, entries, in[2], out, rdma_file, impl, clock, policy;
  bool impl_given = false;
};

int parse_args(const std::vector<std::string>& args, RunArgs* a) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = [&](std::string* dst) {
      if (i + 1 >= args.size() || !dst->empty()) return false;
      *dst = args[++i];
      return true;
    };
    bool ok;
    if (args[i] == "--entries") ok = value(&a->entries);
    else if (args[i] == "--in0") ok = value(&a->in[0]);
    else if (args[i] == "--in1") ok = value(&a->in[1]);
    else if (args[i] == "--out") ok = value(&a->out);
    else if (args[i] == "--rdma") ok = value(&a->rdma_file);
    else if (args[i] == "--fp8-impl") ok = !a->impl_given && (a->impl_given = true) && value(&a->impl);
    else if (args[i] == "--fp8-clock-ps") ok = value(&a->clock);
    else if (args[i] == "--policy") ok = value(&a->policy);
    else if (a->prog.empty() && args[i].rfind("--", 0) != 0) ok = (a->prog = args[i], true);
    else ok = false;
    if (!ok) {
      std::cerr << "dpusim p4 run: unexpected argument '" << args[i] << "'\n";
      return 2;
    }
  }
  if (a->prog.empty() || a->out.empty()) {
    std::cerr << "usage: dpusim p4 run PROG.json [--policy ernic|bmv2] [--entries UPDATES.json] [--in0 HOST.pcap] [--in1 UPLINK.pcap]\n"
                 "                         [--rdma WORK.json] [--fp8-impl cpp|rtl] [--fp8-clock-ps PS] --out DIR\n";
    return 2;
  }
  return 0;
}

// The fp8 unit --fp8-impl and --fp8-clock-ps name, made before anything runs: the RTL unit is
// a SystemC model, elaborated once.
int make_backend(const RunArgs& a, std::unique_ptr<rdma::Fp8Backend>* backend) {
  rtl::Fp8ImplOptions fp8_options;
  if (!a.clock.empty()) {
    std::size_t used = 0;
    try {
      fp8_options.clock_ps = std::stoull(a.clock, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != a.clock.size() || a.clock[0] == '-' || fp8_options.clock_ps == 0) {
      std::cerr << "dpusim p4 run: --fp8-clock-ps '" << a.clock << "' is not a positive whole number of picoseconds\n";
      return 2;
    }
  }
  std::string ferr;
  *backend = rtl::make_fp8_backend(a.impl_given ? a.impl : rtl::kFp8ImplCpp, fp8_options, &ferr);
  if (!*backend) {
    std::cerr << "dpusim p4 run: " << ferr << "\n";
    return 2;
  }
  return 0;
}

// The table updates of an --entries file, in order; the first refused one stops the run.
int install_entries(Engine& engine, const std::string& entries) {
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
    if (!engine.update(updates[i], &ue)) {
      std::cerr << entries << ": update " << i << " (" << update_type_name(updates[i].type) << "): error["
                << update_code_name(ue.code) << "]: " << ue.message << "\n";
      return 1;
    }
  }
  return 0;
}

int read_work(const std::string& rdma_file, RdmaWork* work) {
  std::string text, werr;
  if (!read_text(rdma_file, &text)) {
    std::cerr << rdma_file << ": cannot read\n";
    return 2;
  }
  if (!parse_rdma_work(text, work, &werr)) {
    std::cerr << rdma_file << ": " << werr << "\n";
    return 1;
  }
  return 0;
}

// The --in0 and --in1 captures through the ports into DIR/port0.pcap and DIR/port1.pcap.
int run_captures(Engine& engine, const RunArgs& a) {
  CaptureMerge inputs;
  for (std::uint32_t port = 0; port < 2; ++port) {
    std::string perr;
    if (!a.in[port].empty() && !inputs.add(port, a.in[port], &perr)) {
      std::cerr << perr << "\n";
      return 2;
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) {
    std::cerr << a.out << ": cannot create the output folder: " << ec.message() << "\n";
    return 2;
  }
  PcapWriter writers[2];
  std::string werr;
  for (int port = 0; port < 2; ++port)
    if (!writers[port].open(a.out + "/port" + std::to_string(port) + ".pcap", inputs.nanosecond(), &werr)) {
      std::cerr << werr << "\n";
      return 2;
    }
  if (!run_frames(engine, inputs, writers, &werr)) {
    std::cerr << werr << "\n";
    for (auto& w : writers) w.close(&werr);  // the frames before the damage stay written
    return 2;
  }
  for (auto& w : writers)
    if (!w.close(&werr)) {
      std::cerr << werr << "\n";
      return 2;
    }
  return 0;
}

}  // namespace run_steps

int cmd_run(const std::vector<std::string>& args) {
  using namespace run_steps;
  RunArgs a;
  if (int rc = parse_args(args, &a); rc != 0) return rc;
  // The device's feature set unless --policy names another (docs/p4.md, Feature policies).
  FeaturePolicy features = FeaturePolicy::kErnic;
  if (!a.policy.empty() && !policy_from_arg("run", a.policy, &features)) return 2;
  std::unique_ptr<rdma::Fp8Backend> backend;
  if (int rc = make_backend(a, &backend); rc != 0) return rc;
  LoadError error;
  auto engine = rdma::load_device_program_file(a.prog, &error, features);
  if (!engine) return refused(a.prog, error);
  if (!a.entries.empty())
    if (int rc = install_entries(*engine, a.entries); rc != 0) return rc;
  RdmaWork work;
  if (!a.rdma_file.empty())
    if (int rc = read_work(a.rdma_file, &work); rc != 0) return rc;
  if (int rc = run_captures(*engine, a); rc != 0) return rc;
  if (!a.rdma_file.empty())
    if (int rc = run_rdma(*engine, work, *backend, a.out); rc != 0) return rc;
  std::cout << engine->stats().line() << "\n";
  return 0;
}

}  // namespace dpusim::p4::tool
