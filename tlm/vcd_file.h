// The run's VCD (waves.vcd): a SystemC trace file (sc_core::sc_trace_file, so models keep
// calling sc_trace on it) that writes the Value Change Dump format of IEEE 1364-2005 §18.
//
// It writes what SystemC's own VCD writer (sc_create_vcd_trace_file) writes for the same
// signals: the same identifiers (aaaaa, aaaab... in the order signals are traced), the same
// scopes (a signal's dotted name split at its dots, under a top scope "SystemC"; a scope's
// signals in the order traced, then its sub-scopes by name), the initial values under
// $dumpvars, then at each time step whose values differ from those last written, "#<time>" and
// the changed values in the order traced, and at the end the final time. A value that does not
// fit its width is written as "x", as SystemC does. What differs: a fixed $date (so that two
// identical runs write identical bytes) and the $version naming dpusim.
//
// Why its own: SystemC's writer compares every traced value at every time step through a
// virtual call per signal and reformats times through floating point; here the comparison is
// one tight loop per type over plain pointers, and the output is built in memory and
// written in large blocks.
//
// Supported: bool and the unsigned integer types (sc_signal<bool>, sc_signal<uint32_t>... by
// their values); any other type is refused with std::invalid_argument naming the signal.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <systemc>

namespace dpusim::pcie {

class VcdFile : public sc_core::sc_trace_file {
 public:
  // Creates (or truncates) `path` and registers with the SystemC kernel, which calls cycle()
  // at each time step. Throws std::runtime_error naming the path when it cannot be written.
  explicit VcdFile(const std::string& path);
  ~VcdFile() override;
  VcdFile(const VcdFile&) = delete;
  VcdFile& operator=(const VcdFile&) = delete;

  // Writes the final time, flushes and closes the file, and leaves the kernel's list; nothing
  // is traced afterwards. Throws std::runtime_error naming the path on a write error.
  void close();

  size_t signals() const { return names_.size(); }

  // ---- sc_trace_file ---------------------------------------------------------------------
  void trace(const bool& object, const std::string& name) override;
  void trace(const unsigned char& object, const std::string& name, int width) override;
  void trace(const unsigned short& object, const std::string& name, int width) override;
  void trace(const unsigned int& object, const std::string& name, int width) override;
  void trace(const unsigned long& object, const std::string& name, int width) override;
  void trace(const sc_dt::uint64& object, const std::string& name, int width) override;

  void trace(const sc_core::sc_event&, const std::string& name) override;
  void trace(const sc_core::sc_time&, const std::string& name) override;
  void trace(const sc_dt::sc_bit&, const std::string& name) override;
  void trace(const sc_dt::sc_logic&, const std::string& name) override;
  void trace(const char&, const std::string& name, int) override;
  void trace(const short&, const std::string& name, int) override;
  void trace(const int&, const std::string& name, int) override;
  void trace(const long&, const std::string& name, int) override;
  void trace(const sc_dt::int64&, const std::string& name, int) override;
  void trace(const float&, const std::string& name) override;
  void trace(const double&, const std::string& name) override;
  void trace(const sc_dt::sc_int_base&, const std::string& name) override;
  void trace(const sc_dt::sc_uint_base&, const std::string& name) override;
  void trace(const sc_dt::sc_signed&, const std::string& name) override;
  void trace(const sc_dt::sc_unsigned&, const std::string& name) override;
  void trace(const sc_dt::sc_fxval&, const std::string& name) override;
  void trace(const sc_dt::sc_fxval_fast&, const std::string& name) override;
  void trace(const sc_dt::sc_fxnum&, const std::string& name) override;
  void trace(const sc_dt::sc_fxnum_fast&, const std::string& name) override;
  void trace(const sc_dt::sc_bv_base&, const std::string& name) override;
  void trace(const sc_dt::sc_lv_base&, const std::string& name) override;
  void trace(const unsigned int&, const std::string& name, const char** enum_literals) override;

  void write_comment(const std::string& comment) override;
  // Powers of ten from 1 fs to 100 s; refused once the dump has begun.
  void set_time_unit(double v, sc_core::sc_time_unit tu) override;

 protected:
  void cycle(bool delta_cycle) override;

 private:
  // The signals of one type: where each value is, the value last written, its index (its
  // place in the order traced).
  template <typename T>
  struct Group {
    std::vector<const T*> where;
    std::vector<T> last;
    std::vector<uint32_t> index;
  };
  struct Meta {
    std::string name, id;
    int width;
    uint64_t mask;  // the values that fit the width
  };

  template <typename T>
  void add(Group<T>& g, const T& object, const std::string& name, int width);
  [[noreturn]] void refuse(const std::string& name, const char* type) const;
  void header();
  void value(uint32_t index, uint64_t v);
  uint64_t now() const;  // in time units
  void flush();

  std::string path_;
  FILE* file_ = nullptr;
  std::string out_;
  std::vector<Meta> names_;
  Group<bool> bool_;
  Group<unsigned char> uchar_;
  Group<unsigned short> ushort_;
  Group<unsigned int> uint_;
  Group<unsigned long> ulong_;
  Group<unsigned long long> ullong_;
  std::vector<uint64_t> values_;   // by index: the value last written
  std::vector<uint32_t> changed_;  // scratch: indexes changed in this step
  uint64_t unit_fs_ = 1000;        // the time unit (1 ps)
  uint64_t start_ = 0;             // the time of the initial dump
  bool begun_ = false;
  bool registered_ = false;
};

}  // namespace dpusim::pcie
