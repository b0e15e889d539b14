// The Ethernet admin queue: 64-byte commands from the ring in guest memory, from the device's
// head up to the producer index the doorbell gave, each executed as on the devcmd window's
// admin-queue path (devcmd.h) and answered with a 16-byte completion; the queue's interrupt is
// asserted once the pass is done (rocm-ernic's eth_adminq_service).
#include "ionic/ionic_nic.h"
#include "ionic/ionic_timing.h"
#include "ionic/le_bytes.h"

namespace dpusim::ionic {

void IonicNic::service_adminq() {
  EthQueue& q = eth_.queue(IONIC_QTYPE_ADMINQ, 0);
  if (q.busy) return;
  q.busy = true;
  adminq_next();
}

void IonicNic::adminq_next() {
  EthQueue& q = eth_.queue(IONIC_QTYPE_ADMINQ, 0);
  if (q.head == q.prod) {
    if (ahead()) return at_local_time([this] { adminq_next(); });  // see EthQueues::tx_next
    q.busy = false;
    trace_adminq_pending_ = 0;
    return eth_.interrupt(q);
  }
  after(ctx_.ps(timing::adminq_cmd_ps), [this] {
    EthQueue& q = eth_.queue(IONIC_QTYPE_ADMINQ, 0);
    const uint64_t at = q.init.ring_base + uint64_t(q.head) * ADMIN_CMD_BYTES;
    dma().read(at, ADMIN_CMD_BYTES, [this, at](pcie::Result&& r) {
      EthQueue& q = eth_.queue(IONIC_QTYPE_ADMINQ, 0);
      if (r.outcome != pcie::Outcome::SC) {
        // No command, so no completion: the queue stops until the next doorbell.
        q.busy = false;
        ctx_.event(name(), "adminq_error").hex("addr", at).str("reason", pcie::outcome_name(r.outcome));
        return;
      }
      execute(r.data.data(), CmdPath::kAdminq, nullptr, [this, op = r.data[0]](Comp comp) {
        EthQueue& q = eth_.queue(IONIC_QTYPE_ADMINQ, 0);
        put_le16(&comp[COMP_INDEX], q.head);
        ++counters_.adminq_cmds;
        ctx_.event(name(), "adminq_cmd").u64("index", q.head).u64("opcode", op).str("cmd", ionic_opcode_name(op))
            .str("status", ionic_status_name(comp[COMP_STATUS]));
        eth_.post_completion(q, ADMIN_COMP_BYTES, comp);
        q.head = uint16_t((q.head + 1) % q.depth);
        adminq_next();
      });
    });
  });
}

}  // namespace dpusim::ionic
