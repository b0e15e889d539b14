#include "tlm/vcd_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "tlm/decimal.h"

namespace dpusim::pcie {

namespace {

// The identifier of the n-th signal: five letters, "aaaaa", "aaaab"... (base 26).
std::string identifier(uint32_t n) {
  std::string id(5, 'a');
  for (int i = 4; i >= 0; --i) {
    id[size_t(i)] = char('a' + n % 26);
    n /= 26;
  }
  return id;
}

uint64_t fs_of(sc_core::sc_time_unit tu) {
  switch (tu) {
    case sc_core::SC_FS: return 1;
    case sc_core::SC_PS: return 1000;
    case sc_core::SC_NS: return 1000000;
    case sc_core::SC_US: return 1000000000;
    case sc_core::SC_MS: return 1000000000000;
    case sc_core::SC_SEC: return 1000000000000000;
  }
  return 0;
}

// "1 ps", "100 ns": a power of ten of femtoseconds as VCD's $timescale writes it.
std::string unit_text(uint64_t fs) {
  static const char* const units[] = {"fs", "ps", "ns", "us", "ms", "s"};
  int exp = 0;
  while (fs >= 10) {
    fs /= 10;
    ++exp;
  }
  static const char* const mult[] = {"1", "10", "100"};
  return std::string(mult[exp % 3]) + " " + units[exp / 3];
}

// The scope tree of the declarations: a signal's name split at its dots.
struct Scope {
  std::vector<std::pair<std::string, uint32_t>> vars;  // in the order traced
  std::map<std::string, std::unique_ptr<Scope>> subs;  // by name
};

}  // namespace

VcdFile::VcdFile(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw std::runtime_error("cannot write VCD " + path + ": " + std::strerror(errno));
  sc_core::sc_get_curr_simcontext()->add_trace_file(this);
  registered_ = true;
}

VcdFile::~VcdFile() {
  try {
    close();
  } catch (const std::runtime_error&) {
    // close() is where a write error is reported; a destructor cannot report it.
  }
}

void VcdFile::refuse(const std::string& name, const char* type) const {
  throw std::invalid_argument("VCD " + path_ + ": signal '" + name + "' is a " + type +
                              "; the VCD writer traces bool and unsigned integers only");
}

template <typename T>
void VcdFile::add(Group<T>& g, const T& object, const std::string& name, int width) {
  if (begun_ || !file_)
    throw std::logic_error("VCD " + path_ + ": signal '" + name + "' traced after the dump began");
  const int bits = int(8 * sizeof(T));
  if (width < 1 || width > bits)
    throw std::invalid_argument("VCD " + path_ + ": signal '" + name + "' has width " + std::to_string(width) +
                                ", outside 1.." + std::to_string(bits));
  // A name splits into scopes at its dots; an empty part or white space would make no valid
  // declaration.
  bool ok = !name.empty() && name.front() != '.' && name.back() != '.' && name.find("..") == std::string::npos;
  for (char c : name) ok = ok && static_cast<unsigned char>(c) > 0x20 && c != 0x7f;
  if (!ok) throw std::invalid_argument("VCD " + path_ + ": signal name '" + name + "' is empty, has white space or an empty scope");
  const uint32_t index = uint32_t(names_.size());
  const uint64_t mask = width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  names_.push_back(Meta{name, identifier(index), width, mask});
  g.where.push_back(&object);
  g.last.push_back(object);
  g.index.push_back(index);
}

void VcdFile::trace(const bool& object, const std::string& name) { add(bool_, object, name, 1); }
void VcdFile::trace(const unsigned char& object, const std::string& name, int width) {
  add(uchar_, object, name, width);
}
void VcdFile::trace(const unsigned short& object, const std::string& name, int width) {
  add(ushort_, object, name, width);
}
void VcdFile::trace(const unsigned int& object, const std::string& name, int width) {
  add(uint_, object, name, width);
}
void VcdFile::trace(const unsigned long& object, const std::string& name, int width) {
  add(ulong_, object, name, width);
}
void VcdFile::trace(const sc_dt::uint64& object, const std::string& name, int width) {
  add(ullong_, object, name, width);
}

void VcdFile::trace(const sc_core::sc_event&, const std::string& name) { refuse(name, "sc_event"); }
void VcdFile::trace(const sc_core::sc_time&, const std::string& name) { refuse(name, "sc_time"); }
void VcdFile::trace(const sc_dt::sc_bit&, const std::string& name) { refuse(name, "sc_bit"); }
void VcdFile::trace(const sc_dt::sc_logic&, const std::string& name) { refuse(name, "sc_logic"); }
void VcdFile::trace(const char&, const std::string& name, int) { refuse(name, "char"); }
void VcdFile::trace(const short&, const std::string& name, int) { refuse(name, "signed short"); }
void VcdFile::trace(const int&, const std::string& name, int) { refuse(name, "signed int"); }
void VcdFile::trace(const long&, const std::string& name, int) { refuse(name, "signed long"); }
void VcdFile::trace(const sc_dt::int64&, const std::string& name, int) { refuse(name, "signed 64-bit integer"); }
void VcdFile::trace(const float&, const std::string& name) { refuse(name, "float"); }
void VcdFile::trace(const double&, const std::string& name) { refuse(name, "double"); }
void VcdFile::trace(const sc_dt::sc_int_base&, const std::string& name) { refuse(name, "sc_int"); }
void VcdFile::trace(const sc_dt::sc_uint_base&, const std::string& name) { refuse(name, "sc_uint"); }
void VcdFile::trace(const sc_dt::sc_signed&, const std::string& name) { refuse(name, "sc_bigint"); }
void VcdFile::trace(const sc_dt::sc_unsigned&, const std::string& name) { refuse(name, "sc_biguint"); }
void VcdFile::trace(const sc_dt::sc_fxval&, const std::string& name) { refuse(name, "sc_fxval"); }
void VcdFile::trace(const sc_dt::sc_fxval_fast&, const std::string& name) { refuse(name, "sc_fxval_fast"); }
void VcdFile::trace(const sc_dt::sc_fxnum&, const std::string& name) { refuse(name, "sc_fxnum"); }
void VcdFile::trace(const sc_dt::sc_fxnum_fast&, const std::string& name) { refuse(name, "sc_fxnum_fast"); }
void VcdFile::trace(const sc_dt::sc_bv_base&, const std::string& name) { refuse(name, "sc_bv"); }
void VcdFile::trace(const sc_dt::sc_lv_base&, const std::string& name) { refuse(name, "sc_lv"); }
void VcdFile::trace(const unsigned int&, const std::string& name, const char**) { refuse(name, "enumeration"); }

void VcdFile::write_comment(const std::string& comment) {
  if (!file_) return;
  // No line break inside a comment: some viewers stop at it.
  std::string text = comment;
  std::replace(text.begin(), text.end(), '\n', ' ');
  out_.append("$comment\n").append(text).append("\n$end\n\n");
}

void VcdFile::set_time_unit(double v, sc_core::sc_time_unit tu) {
  if (begun_) throw std::logic_error("VCD " + path_ + ": the time unit is fixed once the dump has begun");
  const double fs = v * double(fs_of(tu));
  uint64_t unit = 1;
  while (double(unit) < fs && unit < 100000000000000000ull) unit *= 10;
  if (double(unit) != fs)
    throw std::invalid_argument("VCD " + path_ + ": time unit " + std::to_string(v) +
                                " is not a power of ten of femtoseconds");
  unit_fs_ = unit;
}

uint64_t VcdFile::now() const {
  const uint64_t t = sc_core::sc_time_stamp().value();
  static const uint64_t kernel_fs = uint64_t(sc_core::sc_get_time_resolution().to_seconds() * 1e15 + 0.5);
  return kernel_fs >= unit_fs_ ? t * (kernel_fs / unit_fs_) : t / (unit_fs_ / kernel_fs);
}

void VcdFile::header() {
  begun_ = true;
  out_.append("$date\n     (fixed: dpusim runs are reproducible)\n$end\n\n");
  out_.append("$version\n dpusim (tlm/vcd_file.h) on SystemC ").append(sc_core::sc_release()).append("\n$end\n\n");
  out_.append("$timescale\n     ").append(unit_text(unit_fs_)).append("\n$end\n\n");
  Scope top;
  for (uint32_t i = 0; i < names_.size(); ++i) {
    Scope* s = &top;
    std::string_view rest = names_[i].name;
    for (size_t dot; (dot = rest.find('.')) != std::string_view::npos; rest.remove_prefix(dot + 1)) {
      auto& sub = s->subs[std::string(rest.substr(0, dot))];
      if (!sub) sub = std::make_unique<Scope>();
      s = sub.get();
    }
    // VCD viewers read brackets in a name as a bit range.
    std::string leaf(rest);
    std::replace(leaf.begin(), leaf.end(), '[', '(');
    std::replace(leaf.begin(), leaf.end(), ']', ')');
    s->vars.emplace_back(std::move(leaf), i);
  }
  const auto print = [&](const auto& self, const Scope& s, const std::string& name) -> void {
    out_.append("$scope module ").append(name).append(" $end\n");
    char line[64];
    for (const auto& [leaf, i] : s.vars) {
      const Meta& m = names_[i];
      std::snprintf(line, sizeof line, "$var wire  % 3d  ", m.width);
      out_.append(line).append(m.id).append("  ").append(leaf);
      if (m.width == 1) {
        out_.append("       $end\n");
      } else {
        std::snprintf(line, sizeof line, " [%d:0]  $end\n", m.width - 1);
        out_.append(line);
      }
    }
    for (const auto& [sub, scope] : s.subs) self(self, *scope, sub);
    out_.append("$upscope $end\n");
  };
  print(print, top, "SystemC");
  out_.append("$enddefinitions  $end\n\n");
  start_ = now();
  std::ostringstream seconds;
  seconds << sc_core::sc_time_stamp().to_seconds();
  std::string comment = "All initial values are dumped below at time " + seconds.str() + " sec = ";
  append_decimal(comment, start_);
  write_comment(comment + " timescale units.");
  out_.append("$dumpvars\n");
  values_.assign(names_.size(), 0);
  const auto take = [&](auto& g) {
    for (size_t k = 0; k < g.where.size(); ++k) values_[g.index[k]] = uint64_t(g.last[k] = *g.where[k]);
  };
  take(bool_);
  take(uchar_);
  take(ushort_);
  take(uint_);
  take(ulong_);
  take(ullong_);
  for (uint32_t i = 0; i < values_.size(); ++i) {
    value(i, values_[i]);
    out_.push_back('\n');
  }
  out_.append("$end\n\n");
}

void VcdFile::value(uint32_t index, uint64_t v) {
  const Meta& m = names_[index];
  const bool fits = (v & m.mask) == v;
  if (m.width == 1) {
    out_.push_back(!fits ? 'x' : v ? '1' : '0');
  } else if (!fits) {
    out_.append("bx ");  // every bit unknown, written as one
  } else {
    // Binary without leading zeros ("b0" for zero).
    char bits[66];
    char* p = bits + sizeof bits;
    *--p = ' ';
    do {
      *--p = char('0' + (v & 1));
      v >>= 1;
    } while (v);
    *--p = 'b';
    out_.append(p, size_t(bits + sizeof bits - p));
  }
  out_.append(m.id);
}

void VcdFile::cycle(bool delta_cycle) {
  if (delta_cycle || !file_) return;
  if (!begun_) return header();
  changed_.clear();
  const auto scan = [&](auto& g) {
    const size_t n = g.where.size();
    for (size_t k = 0; k < n; ++k)
      if (*g.where[k] != g.last[k]) {
        g.last[k] = *g.where[k];
        changed_.push_back(g.index[k]);
        values_[g.index[k]] = uint64_t(g.last[k]);
      }
  };
  scan(bool_);
  scan(uchar_);
  scan(ushort_);
  scan(uint_);
  scan(ulong_);
  scan(ullong_);
  if (changed_.empty()) return;
  std::sort(changed_.begin(), changed_.end());
  out_.push_back('#');
  append_decimal(out_, now());
  out_.push_back('\n');
  for (uint32_t i : changed_) {
    value(i, values_[i]);
    out_.push_back('\n');
  }
  out_.push_back('\n');
  if (out_.size() >= (256u << 10)) flush();
}

void VcdFile::flush() {
  if (!file_ || out_.empty()) return;
  const size_t n = std::fwrite(out_.data(), 1, out_.size(), file_);
  const bool ok = n == out_.size();
  out_.clear();
  if (!ok) {
    std::fclose(file_);
    file_ = nullptr;
    throw std::runtime_error("cannot write VCD " + path_ + ": " + std::strerror(errno));
  }
}

void VcdFile::close() {
  if (registered_) {
    sc_core::sc_get_curr_simcontext()->remove_trace_file(this);
    registered_ = false;
  }
  if (!file_) return;
  if (!begun_) {
    header();
  } else if (const uint64_t t = now(); t > start_) {
    out_.push_back('#');
    append_decimal(out_, t);
    out_.push_back('\n');
  }
  flush();
  const bool ok = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok) throw std::runtime_error("cannot write VCD " + path_ + ": " + std::strerror(errno));
}

}  // namespace dpusim::pcie
