#include "tlm/quantum_keeper.h"

#include <algorithm>

#include "tlm/sim_context.h"
#include "tlm/timing.h"

namespace dpusim::pcie {

using namespace sc_core;

QuantumKeeper::QuantumKeeper(sc_module_name name, SimContext& ctx) : sc_module(name), ctx_(ctx) {
  SC_METHOD(run);
  sensitive << wake_;
  dont_initialize();
}

uint64_t QuantumKeeper::local_ps() const { return running_ ? current_ : SimContext::now_ps(); }

sc_time QuantumKeeper::offset() const { return sc_time::from_value(local_ps() - SimContext::now_ps()); }

void QuantumKeeper::enter(uint64_t local_ps) {
  current_ = local_ps;
  ctx_.set_decoupled(true, local_ps);
}

void QuantumKeeper::post(uint64_t due_ps, std::function<void()> fn) {
  due_ps = std::max(due_ps, local_ps());
  if (runs_now(due_ps)) return run_now(due_ps, fn);
  heap_.push(due_ps, std::move(fn));
  if (!running_) wake_for(heap_.next_time());
}

void QuantumKeeper::wake_for(uint64_t due) {
  const uint64_t now = SimContext::now_ps();
  const uint64_t quantum = ctx_.timing.get(timing::lt_quantum_ps);
  // Within the quantum: at the next delta cycle (the caller finishes first); beyond: at its time.
  wake_.notify(due <= now + quantum ? SC_ZERO_TIME : sc_time::from_value(due - now));
}

void QuantumKeeper::run() {
  const uint64_t now = SimContext::now_ps();
  horizon_ = now + ctx_.timing.get(timing::lt_quantum_ps);
  running_ = true;
  while (!heap_.empty() && heap_.next_time() <= horizon_) {
    auto [due, fn] = heap_.pop();
    enter(due);
    fn();
  }
  ctx_.set_decoupled(false);
  running_ = false;
  if (!heap_.empty()) wake_for(heap_.next_time());
}

}  // namespace dpusim::pcie
