// `dpusim p4 bench --end-to-end --ss PATH`: bmv2's simple_switch run beside `dpusim p4 switch`
// on each row's program, commands and input capture, and the two switches' outputs compared
// frame by frame.
//
// simple_switch runs with `--use-files W -i 0@p0 -i 1@p1 -i 2@p2` (bmv2's file ports: port X
// reads X_in.pcap and writes X_out.pcap, behavioral-model's src/bm_sim/options_parse.cpp); its
// tables are filled during the W seconds it waits before reading, by its runtime CLI
// (simple_switch_CLI, or --ss-cli) fed the row's commands file on the Thrift port. Its rate is
// its output frames over the span of its own output timestamps (bmv2 stamps each written frame
// with gettimeofday, src/bm_sim/pcap_file.cpp), so its start-up and wait are not counted;
// dpusim's is per CPU second of its whole process, as the row above it prints.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace dpusim::p4::tool {

struct SsOptions {
  std::string binary;  // simple_switch ("" : not run)
  std::string cli;     // its runtime CLI; "" : simple_switch_CLI beside the binary, else on PATH
  int thrift_port = 9090;
};

struct SsResult {
  bool ran = false;     // simple_switch started, took the commands and wrote outputs
  std::string problem;  // why it did not, or how the outputs differ ("" : identical)
  std::size_t out = 0;  // frames it wrote
  double fps = 0;       // frames per second over its output timestamps
  double cpu_s = 0;     // the CPU time of its whole process (start-up, commands and wait included)
};

// A capture's records one at a time, reading only the record framing: simple_switch's captures
// carry link type 0 and snap length 0 (pcap_open_dead), which dpusim's reader rightly refuses
// as input. An empty file is a capture without records (simple_switch writes the header with
// its first frame).
class RawCapture {
 public:
  bool open(const std::string& path, std::string* error);
  // The next record; false at the end, or at damage with `error` naming the file and record.
  bool next(std::string* data, double* stamp_s, std::string* error);

 private:
  std::ifstream f_;
  std::string path_;
  std::size_t record_ = 0;
  bool swapped_ = false;
  double unit_ = 1e-6;
};

// Starts `argv` (argv[0] looked up on PATH) in `dir`, in a process group of its own, with stdin
// from `in` ("" : /dev/null) and stdout and stderr into `log`; its pid, or -1.
pid_t spawn_in(const std::vector<std::string>& argv, const std::filesystem::path& dir, const std::string& in,
               const std::string& log);

// Runs simple_switch on `program` in `dir` (p1_in.pcap there; empty captures are made for
// ports 0 and 2), the `commands` file through the CLI, until it has written as many bytes as
// dpusim did or stalled; then compares its outputs with `dpusim_outputs` (one capture per port
// 0..2, dpusim's outputs of the same row).
SsResult run_simple_switch(const SsOptions& options, const std::filesystem::path& dir, const std::string& program,
                           const std::string& commands, const std::vector<std::string>& dpusim_outputs);

}  // namespace dpusim::p4::tool
