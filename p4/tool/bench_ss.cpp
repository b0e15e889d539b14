// simple_switch beside `dpusim p4 switch` (bench_ss.h).
#include "bench_ss.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include "dpusim/p4/pcap.h"

namespace dpusim::p4::tool {

namespace {

constexpr int kQueueDepth = 1 << 20;

std::uint32_t get32(const unsigned char* p, bool swapped) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return swapped ? __builtin_bswap32(v) : v;
}

std::string cli_path(const SsOptions& o) {
  if (!o.cli.empty()) return o.cli;
  const std::filesystem::path beside = std::filesystem::path(o.binary).parent_path() / "simple_switch_CLI";
  std::error_code ec;
  return std::filesystem::exists(beside, ec) ? beside.string() : "simple_switch_CLI";
}

// The bytes simple_switch has written so far (its captures are flushed frame by frame).
std::uintmax_t written_bytes(const std::vector<std::string>& paths) {
  std::uintmax_t n = 0;
  for (const std::string& p : paths) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(p, ec);
    if (!ec) n += size;
  }
  return n;
}

// Ends simple_switch; the CPU seconds (user and system, every thread) it used.
double stop(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  rusage use{};
  if (::wait4(pid, nullptr, 0, &use) != pid) return 0;
  return static_cast<double>(use.ru_utime.tv_sec + use.ru_stime.tv_sec) +
         static_cast<double>(use.ru_utime.tv_usec + use.ru_stime.tv_usec) * 1e-6;
}

// The runtime CLI fed `commands`; retried while the switch's Thrift server is not up yet.
bool fill_tables(const SsOptions& o, const std::filesystem::path& dir, const std::string& commands, pid_t ss,
                 std::string* problem) {
  const std::string log = (dir / "ss_cli.log").string();
  for (int attempt = 0; attempt < 50; ++attempt) {
    const pid_t cli = spawn_in({cli_path(o), "--thrift-port", std::to_string(o.thrift_port)}, dir, commands, log);
    int status = 0;
    ::waitpid(cli, &status, 0);
    std::string text;
    {
      std::ifstream f(log);
      text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && text.find("Could not connect") == std::string::npos) {
      if (text.find("Error") != std::string::npos || text.find("Invalid") != std::string::npos) {
        *problem = "its CLI refused a command (" + log + ")";
        return false;
      }
      return true;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
      *problem = "cannot run its CLI " + cli_path(o) + " (give --ss-cli PATH)";
      return false;
    }
    if (::waitpid(ss, &status, WNOHANG) == ss) {
      *problem = "simple_switch exited before taking its commands (" + (dir / "ss.log").string() + ")";
      return false;
    }
    // The bench's own wall-clock wait for another process; nothing simulated reads it.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  *problem = "its CLI could not reach the Thrift port " + std::to_string(o.thrift_port) + " (" + log + ")";
  return false;
}

// dpusim's outputs against simple_switch's, frame by frame, a frame at a time (the bench's own
// memory stays small: a child's peak resident set counts its parent's at the fork).
std::string compare(const std::vector<std::string>& ours, const std::vector<std::string>& theirs) {
  for (std::size_t port = 0; port < ours.size(); ++port) {
    RawCapture a, b;
    std::string error;
    if (!a.open(ours[port], &error) || !b.open(theirs[port], &error)) return error;
    std::string x, y;
    double t;
    for (std::size_t i = 1;; ++i) {
      const bool more_a = a.next(&x, &t, &error), more_b = b.next(&y, &t, &error);
      if (!error.empty()) return error;
      if (!more_a && !more_b) break;
      if (more_a != more_b)
        return "port " + std::to_string(port) + ": " + (more_a ? "simple_switch" : "dpusim") + " wrote " +
               std::to_string(i - 1) + " frames, the other more";
      if (x != y)
        return "port " + std::to_string(port) + " frame " + std::to_string(i) + " differs (dpusim " +
               std::to_string(x.size()) + " bytes, simple_switch " + std::to_string(y.size()) + ")";
    }
  }
  return "";
}

}  // namespace

// Starts `argv` in `dir` with stdin from `in` ("" : /dev/null) and stdout and stderr into `log`.
pid_t spawn_in(const std::vector<std::string>& argv_s, const std::filesystem::path& dir, const std::string& in,
               const std::string& log) {
  std::vector<std::string> args = argv_s;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int input = ::open(in.empty() ? "/dev/null" : in.c_str(), O_RDONLY);
  if (out < 0 || input < 0 || ::chdir(dir.c_str()) != 0) ::_exit(127);
  ::dup2(input, 0);
  ::dup2(out, 1);
  ::dup2(out, 2);
  ::setpgid(0, 0);
  ::execvp(argv[0], argv.data());
  ::_exit(127);
}

bool RawCapture::open(const std::string& path, std::string* error) {
  path_ = path;
  record_ = 0;
  f_.open(path, std::ios::binary);
  if (!f_) {
    *error = path + ": cannot open";
    return false;
  }
  unsigned char h[24];
  if (f_.peek() == std::ifstream::traits_type::eof()) return true;  // simple_switch writes the header with its first frame
  if (!f_.read(reinterpret_cast<char*>(h), sizeof(h))) {
    *error = path + ": shorter than a pcap header (24 bytes)";
    return false;
  }
  const std::uint32_t magic = get32(h, false);
  swapped_ = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
  const std::uint32_t m = get32(h, swapped_);
  if (m != PCAP_MAGIC_USEC && m != PCAP_MAGIC_NSEC) {
    *error = path + ": not a pcap file (magic " + std::to_string(magic) + ")";
    return false;
  }
  unit_ = m == PCAP_MAGIC_NSEC ? 1e-9 : 1e-6;
  return true;
}

bool RawCapture::next(std::string* data, double* stamp, std::string* error) {
  unsigned char r[16];
  ++record_;
  if (!f_.read(reinterpret_cast<char*>(r), sizeof(r))) {
    if (f_.gcount() != 0) *error = path_ + ": record " + std::to_string(record_) + " cut in its header";
    return false;
  }
  const std::uint32_t caplen = get32(r + 8, swapped_);
  if (caplen > PCAP_MAX_RECORD_BYTES) {
    *error = path_ + ": record " + std::to_string(record_) + " of " + std::to_string(caplen) + " bytes";
    return false;
  }
  data->resize(caplen);
  if (!f_.read(data->data(), caplen)) {
    *error = path_ + ": record " + std::to_string(record_) + " cut after " + std::to_string(f_.gcount()) + " of " +
             std::to_string(caplen) + " bytes";
    return false;
  }
  *stamp = get32(r, swapped_) + get32(r + 4, swapped_) * unit_;
  return true;
}

SsResult run_simple_switch(const SsOptions& o, const std::filesystem::path& dir, const std::string& program,
                           const std::string& commands, const std::vector<std::string>& dpusim_outputs) {
  SsResult res;
  for (const char* port : {"p0_in.pcap", "p2_in.pcap"}) {  // simple_switch opens an input per port
    PcapWriter w;
    std::string error;
    if (!w.open((dir / port).string(), false, &error) || !w.close(&error)) {
      res.problem = error;
      return res;
    }
  }
  // The row's commands, after one that deepens every egress queue: simple_switch drops a frame
  // its egress queue (64 frames by default) has no room for, and with files as ports its
  // ingress thread reads as fast as it can, so a busy machine made it drop.
  const std::string ss_commands = (dir / "ss_commands.txt").string();
  std::size_t lines = 0;
  {
    std::ifstream in(commands);
    std::ofstream out(ss_commands);
    out << "set_queue_depth " << kQueueDepth << "\n";
    for (std::string l; std::getline(in, l); ++lines) out << l << "\n";
    if (!out.flush()) {
      res.problem = ss_commands + ": cannot write";
      return res;
    }
  }
  // The wait before simple_switch reads its inputs: time for the CLI's commands (a few hundred a
  // second through Python and Thrift), or its first frames meet empty tables.
  const int wait_s = 3 + static_cast<int>(lines / 200);
  const pid_t ss = spawn_in({o.binary, "--use-files", std::to_string(wait_s), "--thrift-port", std::to_string(o.thrift_port),
                          "-i", "0@p0", "-i", "1@p1", "-i", "2@p2", program},
                         dir, "", (dir / "ss.log").string());
  if (ss < 0 || !fill_tables(o, dir, ss_commands, ss, &res.problem)) {
    if (ss > 0) stop(ss);
    return res;
  }
  // Until it has written as many bytes as dpusim did (the same frames, if they match), or nothing
  // more for 20 s after its wait: wall time, the bench waiting on another process (nothing
  // simulated reads it).
  std::vector<std::string> outputs;
  for (const char* p : {"p0_out.pcap", "p1_out.pcap", "p2_out.pcap"}) outputs.push_back((dir / p).string());
  const std::uintmax_t expected = written_bytes(dpusim_outputs);
  const auto start = std::chrono::steady_clock::now();
  auto last_growth = start;
  std::uintmax_t seen = 0;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::uintmax_t n = written_bytes(outputs);
    const auto now = std::chrono::steady_clock::now();
    if (n != seen) last_growth = now;
    seen = n;
    if (n >= expected) break;
    int status = 0;
    if (::waitpid(ss, &status, WNOHANG) == ss) {
      res.problem = "simple_switch exited after writing " + std::to_string(n) + " bytes (" + (dir / "ss.log").string() + ")";
      return res;
    }
    if (now - start > std::chrono::seconds(wait_s) && now - last_growth > std::chrono::seconds(20)) break;
  }
  res.cpu_s = stop(ss);
  res.ran = true;
  double first = 0, last = 0;
  for (const std::string& p : outputs) {  // a frame cut by the kill ends its file early
    RawCapture c;
    std::string error, data;
    double t;
    if (!c.open(p, &error)) continue;
    while (c.next(&data, &t, &error)) {
      if (res.out == 0 || t < first) first = t;
      if (res.out == 0 || t > last) last = t;
      ++res.out;
    }
  }
  if (res.out > 1 && last > first) res.fps = static_cast<double>(res.out - 1) / (last - first);
  res.problem = compare(dpusim_outputs, outputs);
  std::error_code ec;
  for (const char* p : {"p0_in.pcap", "p2_in.pcap", "p0_out.pcap", "p1_out.pcap", "p2_out.pcap", "ss_commands.txt"})
    std::filesystem::remove(dir / p, ec);
  return res;
}

}  // namespace dpusim::p4::tool
