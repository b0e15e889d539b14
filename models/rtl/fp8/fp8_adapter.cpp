// Fp8RtlAdapter (fp8_adapter.h): the clock, the beat driver and the TLM transport of the
// verilated fp8 unit.
#include "rtl/fp8/fp8_adapter.h"

#include "Vfp8_unit.h"
#include "rtl/fp8/fp8_lanes.h"

namespace dpusim::rtl {

namespace {

constexpr std::uint32_t kOpCvt = 5;  // fp8_pkg::OP_CVT
using LaneWord = sc_dt::sc_bv<Fp8RtlAdapter::kLanes * 32>;
static_assert(Fp8RtlAdapter::kLanes * 32 > 64, "Verilator gives data ports of up to 64 bits an integer type, not sc_bv");

}  // namespace

// The verilated model and the signals bound to its ports, named as the RTL names them.
struct Fp8RtlAdapter::Unit {
  Vfp8_unit model{"unit"};
  sc_core::sc_signal<bool> clk{"clk"}, rst{"rst"}, s_valid{"s_valid"}, s_ready{"s_ready"}, s_last{"s_last"};
  sc_core::sc_signal<bool> m_valid{"m_valid"}, m_ready{"m_ready"}, m_last{"m_last"}, m_bad{"m_bad"};
  sc_core::sc_signal<std::uint32_t> s_op{"s_op"}, s_fmt{"s_fmt"}, s_dst_fmt{"s_dst_fmt"};
  sc_core::sc_signal<LaneWord> s_a{"s_a"}, s_b{"s_b"}, m_data{"m_data"};

  Unit() {
    model.clk(clk);
    model.rst(rst);
    model.s_valid(s_valid);
    model.s_ready(s_ready);
    model.s_op(s_op);
    model.s_fmt(s_fmt);
    model.s_dst_fmt(s_dst_fmt);
    model.s_a(s_a);
    model.s_b(s_b);
    model.s_last(s_last);
    model.m_valid(m_valid);
    model.m_ready(m_ready);
    model.m_data(m_data);
    model.m_last(m_last);
    model.m_bad(m_bad);
  }
};

Fp8RtlAdapter::Fp8RtlAdapter(sc_core::sc_module_name name, std::uint64_t clock_ps)
    : sc_module(name),
      socket("socket"),
      clock_ps_(clock_ps),
      period_(static_cast<double>(clock_ps), sc_core::SC_PS),
      high_(static_cast<double>(clock_ps / 2), sc_core::SC_PS),  // the first half, rounded down
      low_(period_ - high_),
      unit_(std::make_unique<Unit>()),
      peq_(this, &Fp8RtlAdapter::on_request) {
  if (clock_ps < kMinClockPs)
    SC_REPORT_ERROR(name, ("the fp8 unit's clock period of " + std::to_string(clock_ps) + " ps is below 2 ps").c_str());
  socket.register_b_transport(this, &Fp8RtlAdapter::b_transport);
  socket.register_nb_transport_fw(this, &Fp8RtlAdapter::nb_transport_fw);
  SC_METHOD(on_clock);  // runs at time 0: the power-on reset
}

Fp8RtlAdapter::~Fp8RtlAdapter() = default;

bool Fp8RtlAdapter::idle() const { return reset_left_ == 0 && !busy_ && queue_.empty(); }

// The job's status before any streaming: a refused job, or one with no elements, completes at
// once (false); nothing is written for a refused one.
static bool prepare(tlm::tlm_generic_payload& trans, Fp8JobExtension& ext) {
  ext.outcome = {};
  ext.outcome.status = check_job(ext.job);
  if (ext.outcome.status != formats::Status::ok) {
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return false;
  }
  if (job_elements(ext.job) == 0) {
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    return false;
  }
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  return true;
}

void Fp8RtlAdapter::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  auto* ext = trans.get_extension<Fp8JobExtension>();
  if (ext == nullptr) {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  sc_core::wait(delay);
  delay = sc_core::SC_ZERO_TIME;
  if (!prepare(trans, *ext)) return;
  sc_core::sc_event done;
  submit({&trans, &done});
  sc_core::wait(done);
}

tlm::tlm_sync_enum Fp8RtlAdapter::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                                  sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) {
    peq_.notify(trans, phase, delay);
    phase = tlm::END_REQ;
    delay = sc_core::SC_ZERO_TIME;
    return tlm::TLM_UPDATED;
  }
  if (phase == tlm::END_RESP) return tlm::TLM_COMPLETED;
  SC_REPORT_ERROR(name(), "nb_transport_fw: only BEGIN_REQ and END_RESP are expected (TLM-2.0 base protocol)");
  return tlm::TLM_COMPLETED;
}

// A BEGIN_REQ at its annotated time.
void Fp8RtlAdapter::on_request(tlm::tlm_generic_payload& trans, const tlm::tlm_phase&) {
  auto* ext = trans.get_extension<Fp8JobExtension>();
  bool queued = false;
  if (ext == nullptr)
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
  else if (prepare(trans, *ext))
    queued = (submit({&trans, nullptr}), true);
  if (!queued) {
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
    socket->nb_transport_bw(trans, phase, zero);
  }
}

void Fp8RtlAdapter::submit(const Pending& p) {
  queue_.push_back(p);
  kick_.notify(sc_core::SC_ZERO_TIME);
}

// The clock: a stopped clock starts when kicked (at time 0 for the reset), its first rising
// edge a full period later; a running one toggles until nothing is left to stream, and stops
// low.
void Fp8RtlAdapter::on_clock() {
  if (phase_ == Phase::kLow) {
    rise();
    phase_ = Phase::kHigh;
    next_trigger(high_);
    return;
  }
  const bool running = phase_ == Phase::kHigh;  // else stopped, and kicked
  if (running) unit_->clk.write(false);
  if (reset_left_ == 0 && !busy_) start_next();
  if (reset_left_ == 0 && !busy_) {
    unit_->rst.write(false);
    unit_->s_valid.write(false);
    phase_ = Phase::kStopped;
    next_trigger(kick_);
    return;
  }
  drive();
  phase_ = Phase::kLow;
  next_trigger(running ? low_ : period_);
}

// Takes the next queued job, if any.
void Fp8RtlAdapter::start_next() {
  if (queue_.empty()) return;
  current_ = queue_.front();
  queue_.pop_front();
  job_ = current_.trans->get_extension<Fp8JobExtension>();
  elements_ = job_elements(job_->job);
  beats_ = (elements_ + kLanes - 1) / kLanes;
  beats_in_ = beats_out_ = 0;
  start_cycle_ = cycles_;
  busy_ = true;
}

// At a falling edge: the reset, the next beat of operands (held until it is taken), or none.
void Fp8RtlAdapter::drive() {
  Unit& u = *unit_;
  u.rst.write(reset_left_ > 0);
  u.m_ready.write(true);  // the adapter always has room for a result beat
  if (!busy_ || beats_in_ == beats_) {
    u.s_valid.write(false);
    return;
  }
  const p4::rdma::Fp8Job& job = job_->job;
  LaneWord a, b;
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    const std::size_t i = beats_in_ * kLanes + lane;
    const bool used = i < elements_;
    a.set_word(lane, used ? load_element(job.src, job.a, i) : 0u);
    b.set_word(lane, used && !job.convert ? load_element(job.src, job.b, i) : 0u);
  }
  u.s_op.write(job.convert ? kOpCvt : static_cast<std::uint32_t>(job.op));
  u.s_fmt.write(static_cast<std::uint32_t>(job.src));
  u.s_dst_fmt.write(static_cast<std::uint32_t>(job.dst));
  u.s_a.write(a);
  u.s_b.write(b);
  u.s_last.write(beats_in_ + 1 == beats_);
  u.s_valid.write(true);
}

// At a rising edge: the handshakes complete on the values from before the edge.
void Fp8RtlAdapter::rise() {
  Unit& u = *unit_;
  ++cycles_;
  if (reset_left_ > 0) {
    --reset_left_;
  } else if (busy_) {
    if (u.s_valid.read() && u.s_ready.read()) ++beats_in_;
    if (u.m_valid.read() && u.m_ready.read()) {
      // Both were made impossible by what was sent: a block that says otherwise is broken.
      if (u.m_bad.read()) SC_REPORT_ERROR(name(), "the fp8 unit flagged a beat's op or format codes as out of range");
      if (u.m_last.read() != (beats_out_ + 1 == beats_))
        SC_REPORT_ERROR(name(), "the fp8 unit's last flag does not mark the job's final result beat");
      const LaneWord data = u.m_data.read();
      const p4::rdma::Fp8Job& job = job_->job;
      for (unsigned lane = 0; lane < kLanes; ++lane) {
        const std::size_t i = beats_out_ * kLanes + lane;
        if (i < elements_) store_element(job.dst, job.result, i, data.get_word(lane));
      }
      ++beats_out_;
    }
  }
  u.clk.write(true);
  if (busy_ && beats_out_ == beats_) finish();
}

// The job's last result beat was taken at this edge.
void Fp8RtlAdapter::finish() {
  busy_ = false;
  job_->outcome.cycles = cycles_ - start_cycle_;
  job_->outcome.busy_ps = job_->outcome.cycles * clock_ps_;
  current_.trans->set_response_status(tlm::TLM_OK_RESPONSE);
  if (current_.done != nullptr) {
    current_.done->notify();
  } else {
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
    socket->nb_transport_bw(*current_.trans, phase, zero);
  }
}

}  // namespace dpusim::rtl
