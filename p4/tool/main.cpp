// dpusim-p4: the P4 engine's command line (./dpusim p4 ...).
//
//   check PROG.json [--policy ernic|bmv2] load and validate as the ionic device does (its fp8_unit
//                                         extern, the rdma_metadata rules) under each feature
//                                         policy, or the one named: the summary and which pass
//   run PROG.json [--policy ernic|bmv2] [--entries UPDATES.json] [--in0 HOST.pcap] [--in1 UPLINK.pcap]
//       [--rdma WORK.json] [--fp8-impl cpp|rtl] [--fp8-clock-ps PS] --out DIR
//   stf PROG.json TEST.stf                run a p4c STF test in v1model port mode
//   switch PROG.json -i P@NAME ... --use-files [N] [--commands FILE]
//                                         simple_switch in file mode (NAME_in.pcap -> NAME_out.pcap)
//   bench [--frames N] [--seed S]         throughput and lookup-cost figures
//   bench --end-to-end [--corpus DIR]     p4 switch timed as a user runs it (bench_e2e.cpp)
//
// `run --fp8-impl rtl` is handed to dpusim-p4-rtl, the same tool with the verilated fp8 unit
// (CMakeLists.txt: this one links no SystemC, whose start-up costs every process).
//
// Exit status: 0 success, 1 the program (or an update, or a test) was refused or failed,
// 2 usage or I/O error. Never a signal: every input is validated, none is asserted on.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "dpusim/p4/engine.h"
#include "dpusim/p4/rdma/program.h"
#include "dpusim/p4/stf.h"
#include "tool.h"

namespace dpusim::p4::tool {

namespace {

int usage() {
  std::cerr << "usage: dpusim p4 check PROG.json [--policy ernic|bmv2]\n"
               "       dpusim p4 run PROG.json [--policy ernic|bmv2] [--entries UPDATES.json] [--in0 HOST.pcap] [--in1 UPLINK.pcap]\n"
               "                         [--rdma WORK.json] [--fp8-impl cpp|rtl] [--fp8-clock-ps PS] --out DIR\n"
               "       dpusim p4 stf PROG.json TEST.stf\n"
               "       dpusim p4 switch PROG.json -i PORT@NAME ... --use-files [N] [--commands FILE] [--after FILE] [--seed S]\n"
               "       dpusim p4 bench [--frames N] [--seed S] [--corpus DIR] [--only tables|stress|router]\n"
               "       dpusim p4 bench --end-to-end [--corpus DIR] [--seed S] [--memory-frames N]\n";
  return 2;
}

// Loads the program under each feature policy (or the one --policy names): the summary of the
// program, then one line per policy, "ernic: passes" or "ernic: refused: error[<code>]:
// <message>". Exit 0 when one passes; 1, with the widest policy's refusal on stderr, when
// none does; 2 for usage and I/O errors.
int cmd_check(const std::vector<std::string>& args) {
  std::string prog, policy;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--policy" && i + 1 < args.size() && policy.empty()) policy = args[++i];
    else if (prog.empty() && args[i].rfind("--", 0) != 0) prog = args[i];
    else return usage();
  }
  if (prog.empty()) return usage();
  std::vector<FeaturePolicy> policies(std::begin(kFeaturePolicies), std::end(kFeaturePolicies));
  if (!policy.empty()) {
    policies.resize(1);
    if (!policy_from_arg("check", policy, &policies[0])) return 2;
  }
  std::string summary, lines;
  LoadError last;
  for (FeaturePolicy p : policies) {
    LoadError error;
    auto engine = rdma::load_device_program_file(prog, &error, p);
    if (!engine && error.code == LoadCode::kIo) return refused(prog, error);
    lines += std::string(feature_policy_name(p)) + ": ";
    if (engine) {
      if (summary.empty()) summary = engine->summary();
      lines += "passes\n";
    } else {
      lines += std::string("refused: error[") + load_code_name(error.code) + "]: " + error.message + "\n";
      last = error;
    }
  }
  std::cout << (summary.empty() ? "" : summary + "\n") << lines;
  if (summary.empty()) return refused(prog, last);
  return 0;
}

int cmd_stf(const std::vector<std::string>& args) {
  if (args.size() != 2) return usage();
  LoadOptions options;
  options.policy = PortPolicy::kV1Model;
  options.features = FeaturePolicy::kBmv2;  // bmv2's target
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
  // Straight into *out, sized once (a table's commands file can be megabytes); a file that
  // says no size (a pipe) is read to its end all the same.
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  out->clear();
  if (!ec && size > 0) {
    out->resize(static_cast<std::size_t>(size));
    in.read(out->data(), static_cast<std::streamsize>(size));
    out->resize(static_cast<std::size_t>(in.gcount()));
    if (in.bad()) return false;
    in.clear();
  }
  char chunk[4096];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) out->append(chunk, static_cast<std::size_t>(in.gcount()));
  return !in.bad();
}

bool policy_from_arg(const char* command, const std::string& arg, FeaturePolicy* policy) {
  if (feature_policy_from_name(arg, policy)) return true;
  std::cerr << "dpusim p4 " << command << ": --policy '" << arg
            << "' is not ernic (what rocm-ernic's P4 engine runs) or bmv2 (everything the engine builds)\n";
  return false;
}

int refused(const std::string& prog, const LoadError& error) {
  std::cerr << prog << ": error[" << load_code_name(error.code) << "]: " << error.message << "\n";
  return error.code == LoadCode::kIo ? 2 : 1;
}

// glibc's malloc gives large blocks their own mapping and returns freed memory at the heap's
// top to the kernel; each page taken again then costs a page fault (a trap to the hypervisor
// on a virtual machine). The tool's buffers come and go (a commands file's text, a table's
// bit vectors, capture chunks): freed memory is kept for the next allocation instead.
void keep_freed_memory() {
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

#ifdef DPUSIM_P4_RTL_TOOL
// `run --fp8-impl rtl` in the tool without SystemC (CMakeLists.txt): the same command line
// run by the tool with the RTL unit beside this executable. Returns only when it cannot.
int run_rtl_tool(char** argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string tool = (self.parent_path() / DPUSIM_P4_RTL_TOOL).string();
  if (!ec) ::execv(tool.c_str(), argv);
  std::cerr << "dpusim p4 run: fp8-impl rtl runs in " << (ec ? std::string(DPUSIM_P4_RTL_TOOL) : "'" + tool + "'")
            << " (the tool with the RTL co-simulation), which cannot be started: " << (ec ? ec.message() : std::strerror(errno))
            << "\n";
  return 2;
}
#endif

int main(int argc, char** argv) {
  keep_freed_memory();
  if (argc < 2) return usage();
  std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
#ifdef DPUSIM_P4_RTL_TOOL
  if (cmd == "run")
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == "--fp8-impl" && args[i + 1] == "rtl") return run_rtl_tool(argv);
#endif
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
