// Temporal decoupling for a loosely timed requester (IEEE 1666-2011 §12.4, tlm_quantumkeeper),
// for models written as callbacks on simulated time rather than as SystemC threads.
//
// Work the requester's device does in lt mode (a DMA completion, the firmware step that follows
// it) is posted here with the local time it is due at. The keeper runs it without returning to
// the SystemC kernel as long as it is due within one quantum (`lt.quantum_ps`) of the kernel's
// time: the device runs ahead of the rest of the platform by at most the quantum, with its own
// local time (local_ps()), which every timed thing it does is annotated with. Work due later is
// a synchronisation point: the keeper wakes at its time, so the local time never drifts more
// than a quantum from the kernel's. Items run in (due time, posting order): deterministic.
// While an item runs, the platform's SimContext reports its local time (SimContext::local_ps),
// which is the time the events it logs carry.
//
// A quantum of 0 runs every item at its own time (no decoupling, one kernel event per item).
//
// A device whose code allows it (allow_nesting) has work that is due within the quantum run at
// once, nested in the item that posted it, at its own local time (the poster's local time is
// back when it returns), instead of through the queue: the same local times, without a queue
// entry per step. Nesting stops at kMaxDepth levels (the queue takes over), so the stack stays
// bounded. Work of one chain then runs ahead of other chains' earlier work within the quantum,
// as threads of a temporally decoupled model do.
#pragma once

#include <systemc>

#include <cstdint>
#include <functional>

#include "tlm/timed_heap.h"

namespace dpusim::pcie {

class SimContext;

class QuantumKeeper : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(QuantumKeeper);
  QuantumKeeper(sc_core::sc_module_name name, SimContext& ctx);

  static constexpr unsigned kMaxDepth = 256;

  // Runs `fn` at local time `due_ps` (not before the caller's local time).
  void post(uint64_t due_ps, std::function<void()> fn);
  void allow_nesting(bool on) { nesting_ = on; }
  // Whether work due at `due_ps` would run at once (nested) rather than be queued.
  bool runs_now(uint64_t due_ps) const {
    return nesting_ && running_ && depth_ < kMaxDepth && due_ps <= horizon_ && due_ps >= current_;
  }
  // Runs `fn` nested at local time `due_ps` (runs_now(due_ps) must hold).
  template <typename Fn>
  void run_now(uint64_t due_ps, Fn&& fn) {
    const uint64_t saved = current_;
    ++depth_;
    enter(due_ps);
    fn();
    enter(saved);
    --depth_;
  }
  // The local time: the due time of the item running now, else the kernel's time.
  uint64_t local_ps() const;
  // How far the local time is ahead of the kernel's.
  sc_core::sc_time offset() const;
  size_t pending() const { return heap_.size(); }

 private:
  void run();
  void wake_for(uint64_t due);
  void enter(uint64_t local_ps);

  SimContext& ctx_;
  TimedHeap heap_;  // (due, posting order)
  bool running_ = false;
  bool nesting_ = false;
  unsigned depth_ = 0;
  uint64_t current_ = 0;  // due time of the running item
  uint64_t horizon_ = 0;  // kernel time + quantum while running
  sc_core::sc_event wake_;
};

}  // namespace dpusim::pcie
