// dpusim-p4: the P4 engine's command line (./dpusim p4 ...).
//
//   check PROG.json                       load and validate as the ionic device does (its fp8_unit
//                                         extern, the rdma_metadata rules); one-line summary
//   run PROG.json [--entries UPDATES.json] [--in0 HOST.pcap] [--in1 UPLINK.pcap]
//       [--rdma WORK.json] [--fp8-impl cpp|rtl] [--fp8-clock-ps PS] --out DIR
//   stf PROG.json TEST.stf                run a p4c STF test in v1model port mode
//   switch PROG.json -i P@NAME ... --use-files [N] [--commands FILE]
//                                         simple_switch in file mode (NAME_in.pcap -> NAME_out.pcap)
//   bench [--frames N] [--seed S]         throughput and lookup-cost figures
//
// Exit status: 0 success, 1 the program (or an update, or a test) was refused or failed,
// 2 usage or I/O error. Never a signal: every input is validated, none is asserted on.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "dpusim/p4/engine.h"
#include "dpusim/p4/rdma/program.h"
#include "dpusim/p4/stf.h"
#include "tool.h"

namespace dpusim::p4::tool {

namespace {

int usage() {
  std::cerr << "usage: dpusim p4 check PROG.json\n"
               "       dpusim p4 run PROG.json [--entries UPDATES.json] [--in0 HOST.pcap] [--in1 UPLINK.pcap]\n"
               "                         [--rdma WORK.json] [--fp8-impl cpp|rtl] [--fp8-clock-ps PS] --out DIR\n"
               "       dpusim p4 stf PROG.json TEST.stf\n"
               "       dpusim p4 switch PROG.json -i PORT@NAME ... --use-files [N] [--commands FILE] [--after FILE] [--seed S]\n"
               "       dpusim p4 bench [--frames N] [--seed S]\n";
  return 2;
}

int cmd_check(const std::vector<std::string>& args) {
  if (args.size() != 1) return usage();
  LoadError error;
  auto engine = rdma::load_device_program_file(args[0], &error);
  if (!engine) return refused(args[0], error);
  std::cout << engine->summary() << "\n";
  return 0;
}

int cmd_stf(const std::vector<std::string>& args) {
  if (args.size() != 2) return usage();
  LoadOptions options;
  options.policy = PortPolicy::kV1Model;
  LoadError error;
  auto engine = Engine::load_file(args[0], options, &error);
  if (!engine) return refused(args[0], error);
  std::string text;
  if (!read_text(args[1], &text)) {
    std::cerr << args[1] << ": cannot read\n";
    return 2;
  }
  StfOutcome out = run_stf(*engine, text);
  std::cout << args[1] << ": " << (out.passed ? "pass" : "FAIL: " + out.message) << " (" << out.packets << " packets, "
            << out.expects << " expects, " << out.entries << " entries)\n";
  return out.passed ? 0 : 1;
}

}  // namespace

bool read_text(const std::string& path, std::string* out) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return false;  // opens, then reads as empty
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return !in.bad();
}

int refused(const std::string& prog, const LoadError& error) {
  std::cerr << prog << ": error[" << load_code_name(error.code) << "]: " << error.message << "\n";
  return error.code == LoadCode::kIo ? 2 : 1;
}

void order_by_time(std::vector<PortFrame>* frames) {
  std::stable_sort(frames->begin(), frames->end(), [](const PortFrame& a, const PortFrame& b) {
    if (a.ts_ns != b.ts_ns) return a.ts_ns < b.ts_ns;
    if (a.port != b.port) return a.port < b.port;
    return a.index < b.index;
  });
}

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (cmd == "check") return cmd_check(args);
    if (cmd == "run") return cmd_run(args);
    if (cmd == "stf") return cmd_stf(args);
    if (cmd == "bench") return cmd_bench(args);
    if (cmd == "switch") return cmd_switch(args);
  } catch (const std::bad_alloc&) {
    std::cerr << "dpusim p4: out of memory\n";
    return 2;
  }
  return usage();
}

}  // namespace dpusim::p4::tool

int main(int argc, char** argv) { return dpusim::p4::tool::main(argc, argv); }
