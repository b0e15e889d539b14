// The run's VCD writer (tlm/vcd_file.h): fed the same signals and changes as SystemC's own VCD
// writer, it writes the same declarations, initial values and value changes (all but the
// $date and $version blocks), and refuses what it cannot trace by name.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include "tlm/vcd_file.h"

using namespace sc_core;
using dpusim::pcie::VcdFile;

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text without its `$date ... $end` and `$version ... $end` blocks.
std::string without_date_and_version(std::string text) {
  for (const char* block : {"$date", "$version"}) {
    const size_t b = text.find(block);
    if (b == std::string::npos) continue;
    text.erase(b, text.find("$end", b) + 4 - b);
  }
  return text;
}

std::string temp_dir() {
  char dir[] = "/tmp/dpusim_vcd_XXXXXX";
  return mkdtemp(dir) ? dir : "/tmp";
}

}  // namespace

TEST(VcdFile, WritesTheValueChangesSystemCsWriterWrites) {
  const std::string dir = temp_dir();
  bool up = false;
  uint32_t tlps = 0;
  uint16_t slot_ctl = 0x3c0;
  uint8_t state = 0, narrow = 0;
  unsigned long wide = 0;
  sc_signal<bool> clk("clk");
  sc_trace_file* ref = sc_create_vcd_trace_file((dir + "/ref").c_str());
  auto mine = std::make_unique<VcdFile>(dir + "/mine.vcd");
  for (sc_trace_file* tf : {ref, static_cast<sc_trace_file*>(mine.get())}) {
    tf->set_time_unit(1, SC_PS);
    sc_trace(tf, up, "link_host.up");
    sc_trace(tf, tlps, "link_host.tlps_down", 32);
    sc_trace(tf, slot_ctl, "switch.dsp0.slot_ctl", 16);
    sc_trace(tf, state, "ep0.vq1.state", 8);
    sc_trace(tf, narrow, "ep0.vq1.narrow", 3);   // 9 does not fit: "x"
    sc_trace(tf, wide, "host.wide", 64);
    sc_trace(tf, clk, "ep0.rtl.clk");
    sc_trace(tf, narrow, "ep0.a[1]", 1);  // brackets become parentheses; 2 does not fit one bit
  }
  EXPECT_EQ(mine->signals(), 8u);
  sc_spawn([&] {
    wait(sc_time(10, SC_PS));
    up = true;
    tlps = 5;
    wait(sc_time(10, SC_PS));
    state = 3;
    state = 0;  // back where it was within the step: no change written
    wait(sc_time(5, SC_PS));  // nothing changes at 25
    wait(sc_time(5, SC_PS));
    narrow = 9;
    wide = 0x8000000000000001ul;
    clk.write(true);
    wait(sc_time(1000000, SC_PS));
    narrow = 2;
    slot_ctl = 0;
    tlps = 0xffffffff;
  });
  sc_start(sc_time(2000000, SC_PS));
  mine->close();
  mine.reset();
  sc_close_vcd_trace_file(ref);

  const std::string got = read(dir + "/mine.vcd");
  EXPECT_EQ(without_date_and_version(got), without_date_and_version(read(dir + "/ref.vcd")));
  EXPECT_EQ(got.rfind("$date\n     (fixed: dpusim runs are reproducible)\n$end\n\n", 0), 0u) << got;
  EXPECT_NE(got.find("$scope module SystemC $end\n$scope module ep0 $end\n"
                     "$var wire    1  aaaah  a(1)       $end\n"
                     "$scope module rtl $end\n$var wire    1  aaaag  clk       $end\n$upscope $end\n"
                     "$scope module vq1 $end\n$var wire    8  aaaad  state [7:0]  $end\n"
                     "$var wire    3  aaaae  narrow [2:0]  $end\n$upscope $end\n$upscope $end\n"),
            std::string::npos)
      << got;
  EXPECT_NE(got.find("#10\n1aaaaa\nb101 aaaab\n\n#30\nbx aaaae\n"
                     "b1000000000000000000000000000000000000000000000000000000000000001 aaaaf\n1aaaag\nxaaaah\n\n"
                     "#1000030\nb11111111111111111111111111111111 aaaab\nb0 aaaac\nb10 aaaae\nxaaaah\n\n#2000000\n"),
            std::string::npos)
      << got;
  EXPECT_EQ(got.find("#20\n"), std::string::npos) << got;
}

TEST(VcdFile, RefusesWhatItCannotTraceByName) {
  const std::string dir = temp_dir();
  VcdFile vcd(dir + "/bad.vcd");
  int signed_value = 0;
  uint8_t byte = 0;
  double real = 0;
  try {
    sc_trace(&vcd, signed_value, "ep0.level", 32);
    FAIL() << "a signed int was traced";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "VCD " + dir + "/bad.vcd: signal 'ep0.level' is a signed int; the VCD writer "
                                     "traces bool and unsigned integers only");
  }
  EXPECT_THROW(sc_trace(&vcd, real, "ep0.ratio"), std::invalid_argument);
  try {
    sc_trace(&vcd, byte, "ep0.state", 9);
    FAIL() << "9 bits of a byte were traced";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "VCD " + dir + "/bad.vcd: signal 'ep0.state' has width 9, outside 1..8");
  }
  try {
    sc_trace(&vcd, byte, "ep0..state", 8);
    FAIL() << "an empty scope was traced";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "VCD " + dir + "/bad.vcd: signal name 'ep0..state' is empty, has white space or an empty scope");
  }
  EXPECT_THROW(sc_trace(&vcd, byte, "ep0.a state", 8), std::invalid_argument);
  EXPECT_THROW(vcd.set_time_unit(3, SC_PS), std::invalid_argument);
  EXPECT_EQ(vcd.signals(), 0u);
  try {
    VcdFile nowhere(dir + "/no/such/dir/waves.vcd");
    FAIL() << "a VCD was opened in a missing directory";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write VCD " + dir + "/no/such/dir/waves.vcd: No such file or directory");
  }
}
