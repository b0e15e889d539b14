// The fp8 unit's cycle-level harness (unit_harness.h).
#include "unit_harness.h"

#include <random>

#include "Vfp8_unit.h"

namespace dpusim::rtl::test {

using LaneWord = sc_dt::sc_bv<kLanes * 32>;

struct UnitHarness::Impl : sc_core::sc_module {
  SC_HAS_PROCESS(Impl);
  Vfp8_unit unit{"unit"};
  sc_core::sc_signal<bool> clk{"clk"}, rst{"rst"}, s_valid{"s_valid"}, s_ready{"s_ready"}, s_last{"s_last"};
  sc_core::sc_signal<bool> m_valid{"m_valid"}, m_ready{"m_ready"}, m_last{"m_last"}, m_bad{"m_bad"};
  sc_core::sc_signal<std::uint32_t> s_op{"s_op"}, s_fmt{"s_fmt"}, s_dst_fmt{"s_dst_fmt"};
  sc_core::sc_signal<LaneWord> s_a{"s_a"}, s_b{"s_b"}, m_data{"m_data"};
  Driver driver;
  Sample sample;
  bool high = false, started = false;
  const sc_core::sc_time half{1, sc_core::SC_PS};

  explicit Impl(sc_core::sc_module_name name) : sc_module(name) {
    unit.clk(clk);
    unit.rst(rst);
    unit.s_valid(s_valid);
    unit.s_ready(s_ready);
    unit.s_op(s_op);
    unit.s_fmt(s_fmt);
    unit.s_dst_fmt(s_dst_fmt);
    unit.s_a(s_a);
    unit.s_b(s_b);
    unit.s_last(s_last);
    unit.m_valid(m_valid);
    unit.m_ready(m_ready);
    unit.m_data(m_data);
    unit.m_last(m_last);
    unit.m_bad(m_bad);
    SC_METHOD(on_clock);
  }

  void on_clock() {
    if (!high && started) {  // rising edge: sample first
      ++sample.cycle;
      sample.s_valid = s_valid.read();
      sample.s_ready = s_ready.read();
      sample.m_valid = m_valid.read();
      sample.m_ready = m_ready.read();
      sample.m_last = m_last.read();
      sample.m_bad = m_bad.read();
      const LaneWord d = m_data.read();
      for (unsigned i = 0; i < kLanes; ++i) sample.data[i] = d.get_word(i);
      clk.write(true);
      high = true;
      next_trigger(half);
      return;
    }
    clk.write(false);  // falling edge (or the start): drive
    high = false;
    std::optional<Inputs> in = driver(started ? &sample : nullptr);
    started = true;
    if (!in) return;  // the clock stops; nothing else is scheduled
    LaneWord a, b;
    for (unsigned i = 0; i < kLanes; ++i) {
      a.set_word(i, in->a[i]);
      b.set_word(i, in->b[i]);
    }
    rst.write(in->rst);
    s_valid.write(in->s_valid);
    s_op.write(in->op);
    s_fmt.write(in->fmt);
    s_dst_fmt.write(in->dst_fmt);
    s_a.write(a);
    s_b.write(b);
    s_last.write(in->s_last);
    m_ready.write(in->m_ready);
    next_trigger(half);
  }
};

UnitHarness::UnitHarness() : impl_(std::make_unique<Impl>("harness")) {}
UnitHarness::~UnitHarness() = default;

void UnitHarness::run(Driver driver) {
  impl_->driver = std::move(driver);
  sc_core::sc_start();
}

StreamResult stream(const std::vector<Beat>& beats, unsigned ready_percent, unsigned valid_percent, std::uint64_t seed) {
  StreamResult out;
  out.data.reserve(beats.size());
  std::mt19937_64 rng(seed);
  std::size_t next = 0;
  bool offering = false;
  UnitHarness h;
  h.run([&](const Sample* s) -> std::optional<Inputs> {
    Inputs in;
    if (s == nullptr || s->cycle < 2) {
      in.rst = true;
      return in;
    }
    if (s->accepted()) ++next, offering = false;
    if (s->produced()) {
      out.data.push_back(s->data);
      out.cycles.push_back(s->cycle);
      out.last.push_back(s->m_last);
      out.bad.push_back(s->m_bad);
    }
    if (out.data.size() == beats.size()) {
      out.total_cycles = s->cycle;
      return std::nullopt;
    }
    // A beat once offered stays offered until it moves (the handshake's rule).
    if (next < beats.size() && (offering || rng() % 100 < valid_percent)) {
      const Beat& b = beats[next];
      offering = true;
      in.s_valid = true;
      in.op = b.op;
      in.fmt = b.fmt;
      in.dst_fmt = b.dst_fmt;
      in.a = b.a;
      in.b = b.b;
      in.s_last = next + 1 == beats.size();
    }
    in.m_ready = rng() % 100 < ready_percent;
    return in;
  });
  return out;
}

}  // namespace dpusim::rtl::test
