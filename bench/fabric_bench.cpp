// Config-read round trips per wall second issued from C++, with the event log off and on.
//
// Each measurement runs in its own process (SystemC elaborates once per process): a platform
// with one test endpoint, bus numbers programmed, then N back-to-back CfgRd of 02:00.0 through
// the switch, each issued from the previous one's completion callback. The wall clock is read
// only here, around the run, never by the simulation.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "platform/platform.h"

extern "C" int sc_main(int, char**) { return 0; }

namespace {

using namespace dpusim;

void measure(uint64_t n, bool log_on) {
  platform::PlatformSpec spec = platform::parse_platform_doc(R"({"topology": {"endpoints": 1}, "outputs": {"vcd": false}})");
  platform::Platform p(spec, platform::Outputs{log_on ? "/dev/null" : "", "", "", ""});
  p.ctx().log.set_enabled(log_on);
  host::RootComplex& rc = p.host();
  // Bus numbers: USP 0 -> 1..2, DSP0 1 -> 2..2 (what enumeration would write).
  rc.config_write(0x0000, 0x18, 4, 0x00020100, [](pcie::Result&&) {});
  rc.config_write(0x0100, 0x18, 4, 0x00020201, [](pcie::Result&&) {});
  p.advance(UINT64_MAX);
  uint64_t done = 0, failures = 0, start_ps = platform::Platform::now_ps(), end_ps = 0;
  std::function<void(pcie::Result&&)> next = [&](pcie::Result&& r) {
    if (r.outcome != pcie::Outcome::SC) ++failures;
    if (++done < n) rc.config_read(0x0200, 0, 4, next);
    else end_ps = platform::Platform::now_ps();
  };
  const auto t0 = std::chrono::steady_clock::now();
  rc.config_read(0x0200, 0, 4, next);
  p.advance(UINT64_MAX);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("C++     log %-3s  %9llu round trips in %6.3f s  %10.0f round trips/s  (%.0f ns simulated each, %llu failed)\n",
              log_on ? "on" : "off", static_cast<unsigned long long>(done), s, double(done) / s,
              double(end_ps - start_ps) / 1000.0 / double(done ? done : 1), static_cast<unsigned long long>(failures));
  p.finish();
}

}  // namespace

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2000000;
  for (bool log_on : {false, true}) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      measure(log_on ? n / 4 : n, log_on);
      std::fflush(stdout);
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "benchmark child failed\n");
      return 1;
    }
  }
  return 0;
}
