// The offload engine's VQ objects and their lifecycle (the DOCA guide's VNet offload engine:
// the engine is started, enabled, disabled and stopped; each VQ created, configured, started,
// enabled, disabled, stopped and destroyed by the application), each change logged
// ("vq_state") and traced per queue. What a change means for the datapath (a queue that became
// runnable is serviced, a stopped one drops the frames waiting for it, a destroyed CVQ is
// unbound) is the engine's, through the hooks (vnet_engine.h).
#pragma once

#include <systemc>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/net_end.h"
#include "tlm/function_dma.h"
#include "tlm/sim_context.h"
#include "vnet/virtio/split_ring.h"

namespace dpusim::vnet {

enum class VqState : uint8_t { UNCREATED, CREATED, CONFIGURED, STARTED, ENABLED, DISABLED, STOPPED, DESTROYED };
const char* vq_state_name(VqState s);

// One VQ as the engine walks it: its ring, its lifecycle state, the device's ring positions.
struct Vq {
  Vq(pcie::FunctionDma& dma, unsigned q) : ring(dma, VqConf{}), index(q) {}
  SplitRing ring;
  unsigned index;
  VqState state = VqState::UNCREATED;
  uint16_t last_avail = 0, avail_idx = 0, used_idx = 0, avail_flags = 0;
  bool busy = false, again = false;  // a service pass is running; another is wanted after it
  std::deque<net::Frame> fifo;  // RX: frames waiting for buffers (rx_path.h)
  std::shared_ptr<std::vector<Chain>> rx_chains;  // RX: the chains of the frame being placed
  uint8_t trace_state = 0;
};

// The engine's per-queue-kind counters, for tests and the study.
struct EngineCounters {
  uint64_t tx_frames = 0, rx_frames = 0, rx_fifo_drops = 0, rx_too_big = 0, rx_no_queue = 0, tx_dropped = 0;
  uint64_t kicks = 0, kicks_ignored = 0;
  // Transmit offloads (net/offload.h): GSO frames taken, the segments made of them, L4
  // checksums filled, frames dropped for a bad or unnegotiated offload request (also in tx_dropped).
  uint64_t tx_gso_frames = 0, tx_segments = 0, tx_csum_filled = 0, tx_offload_drops = 0;
};

class VqLifecycle {
 public:
  // `path`, `index`: what the "vq_state" events carry (the engine's name, its endpoint).
  VqLifecycle(pcie::SimContext& ctx, const std::string& path, unsigned index, unsigned num_vqs,
              pcie::FunctionDma& dma);

  // The engine.
  void engine_start();
  void engine_enable();
  void engine_disable();
  void engine_stop();
  bool engine_started() const { return started_; }
  bool engine_enabled() const { return enabled_; }
  // The engine's first malformed ring stops every queue (false: it already had one).
  bool fail();

  // The VQs.
  void vq_create(unsigned q);
  // A live update's standby takes the engine over (live_update.h): queue q is created again at
  // the ring position its previous incarnation reached, the used index it published (a chain
  // taken but not completed is taken again), where vq_create starts a fresh ring at 0.
  void vq_resume(unsigned q);
  void vq_set_conf(unsigned q, const VqConf& conf);
  void vq_start(unsigned q);
  void vq_stop(unsigned q);
  void vq_destroy(unsigned q);
  void vq_group_enable(unsigned first, unsigned last);
  void vq_group_disable(unsigned first, unsigned last);
  VqState vq_state(unsigned q) const { return vqs_[q]->state; }
  unsigned num_vqs() const { return unsigned(vqs_.size()); }
  Vq& vq(unsigned q) { return *vqs_[q]; }
  const Vq& vq(unsigned q) const { return *vqs_[q]; }
  // Queue `vq` moves descriptors: the engine started and enabled, no error, the VQ ENABLED.
  bool running(const Vq& vq) const;
  void trace(sc_core::sc_trace_file* vcd, const std::string& prefix);

  // A VQ reached ENABLED (the application model checks that its driver may have it enabled).
  std::function<void(unsigned q)> on_vq_enabled;
  // The engine's: a queue became runnable; a queue is stopping; a queue is being destroyed.
  std::function<void(Vq& vq)> on_runnable, on_stopping;
  std::function<void(unsigned q)> on_destroying;

 private:
  void set_state(Vq& vq, VqState s);

  pcie::SimContext& ctx_;
  std::string path_;
  unsigned index_;
  std::vector<std::unique_ptr<Vq>> vqs_;
  bool started_ = false, enabled_ = false, error_ = false;
};

}  // namespace dpusim::vnet
