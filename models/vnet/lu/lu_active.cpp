// The active's switchover after SIGUSR1 and its side of the channel LU (vnet_pci_dev_lu.c; the
// DOCA guide §7.9), on its main thread once it has left the progress loop:
//  1. save the device state to the SHM (INITIALIZED -> PRE_COPY);
//  2. accept the standby's connection (<= 300 s), close the listener, send the cmd_fd ('F');
//  3. wait <= 300 s for DEV_READY;
//  4. shut the workqueue down (queued work discarded);
//  5. per endpoint in order: the controller cleanup without destroying the engine, then DEV_GO
//     (-> STOPPED);
//  6. wait <= 300 s for DEV_ACK (-> MIGRATED), then the channel LU: CH_EXPORT, CH_BEGIN (or
//     NACK), yield primary and drain PE1, CH_BEGIN_ACK with the channel state, CH_END (status),
//     CH_END_ACK;
//  7. idle.
// A failure of 2-6 is not rolled back: "LU handover failed: %s", the SHM unlinked, the process
// cleaned up (its engines destroyed) and gone. A channel failure rolls the channel back to the
// active, which serves it again.
#include "tlm/bytes.h"
#include "vnet/app/cleanup.h"
#include "vnet/switch/dsp_msi.h"
#include "vnet/lu/live_update.h"
#include "vnet/lu/lu_channel.h"
#include "vnet/lu/lu_transfer.h"
#include "vnet/app/pe1.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

LuActive::LuActive(LuSession& s) : s_(s), p_(s.p), rv_(s.rv), thread_(s.thread) {}

void LuActive::handover() {
  // The main loop notices the flag on its next iteration, after this one's PE1 progress.
  s_.app().main_thread.then(s_.app().cost(timing::main_loop_ps), [this] { notice_signal(); });
}

void LuActive::notice_signal() {
  p_.log().info(kMainThread, "SIGUSR1 received -- exiting progress loop for handover");
  p_.pe1().hold_for_handover(true);
  thread_.then([this] { save_state(); });
}

void LuActive::save_state() {
  AppState& a = s_.app();
  eps_ = exported_eps();
  const LuExport e = lu_capture(a.opt, a, eps_, uint32_t(LuState::PRE_COPY));
  const std::vector<uint8_t> bytes = lu_export_write(e);
  // The engines' exports (a firmware command each), then the copy into the segment.
  for (size_t k = 0; k < eps_.size(); ++k) thread_.then(a.cost(timing::lu_engine_export_ps), [] {});
  thread_.then(s_.copy_cost(bytes.size()), [this, bytes] {
    rv_.shm = bytes;
    p_.shared().ctx.event(p_.log().thread_path("vnet.lu"), "lu_export")
        .u64("pid", p_.pid()).u64("devices", eps_.size()).u64("bytes", bytes.size());
    s_.set_state(LuState::PRE_COPY);
    accept_and_send_fd();
  });
}

void LuActive::accept_and_send_fd() {
  if (!rv_.backlog) {
    // accept() blocks for at most 300 s.
    const uint64_t deadline = p_.shared().ctx.now_ps() + s_.sec(VNET_LU_TIMEOUT_SEC);
    rv_.on_connect = [this] { thread_.then([this] { accept_and_send_fd(); }); };
    p_.shared().later.at(sc_core::sc_time::from_value(s_.sec(VNET_LU_TIMEOUT_SEC)), [this, deadline] {
      if (!rv_.on_connect || rv_.backlog || p_.shared().ctx.now_ps() < deadline) return;
      rv_.on_connect = nullptr;
      thread_.then([this] { handover_failed("DOCA_ERROR_TIME_OUT"); });
    });
    return;
  }
  s_.sock = std::move(rv_.backlog);
  s_.side = 1;
  rv_.listener = nullptr;  // closed and unlinked
  rv_.on_connect = nullptr;
  LuMessage fd{LuMsg::CMD_FD, kLuCmdFdMarker, {kLuCmdFdMarker}};
  if (!s_.sock->send(s_.side, fd)) return handover_failed("DOCA_ERROR_IO_FAILED");
  await_ready();
}

void LuActive::await_ready() {
  s_.sock->recv(s_.side, thread_, s_.sec(VNET_LU_TIMEOUT_SEC), [this](std::optional<LuMessage> m, const char* error) {
    if (!m) {
      if (std::string(error) == "DOCA_ERROR_TIME_OUT") p_.log().error(kMainThread, "Timed out waiting for standby ready signal");
      return handover_failed(error);
    }
    if (m->value != uint32_t(LuMsg::DEV_READY)) {
      p_.log().error(kMainThread, "Invalid ready signal: got %u (expected DEV_READY=%u)", m->value,
                     uint32_t(LuMsg::DEV_READY));
      return handover_failed("DOCA_ERROR_INVALID_VALUE");
    }
    stop_devices();
  });
}

void LuActive::stop_devices() {
  AppState& a = s_.app();
  a.wq.shutdown();  // queued work is discarded; the running item finishes
  a.wq.when_item_done([this] {
    thread_.then([this] {
      for (size_t k = 0; k < eps_.size(); ++k) {
        const unsigned i = eps_[k];
        p_.cleanup().controller_cleanup(i, false, thread_, kMainThread);
        thread_.then([this, k] {
          if (!s_.sock->send(s_.side, LuMessage{LuMsg::DEV_GO, uint32_t(LuMsg::DEV_GO), {uint8_t(k)}}))
            handover_failed("DOCA_ERROR_IO_FAILED");
        });
      }
      thread_.then([this] {
        if (failed_) return;
        s_.set_state(LuState::STOPPED);
        await_ack();
      });
    });
  });
}

void LuActive::await_ack() {
  s_.sock->recv(s_.side, thread_, s_.sec(VNET_LU_TIMEOUT_SEC), [this](std::optional<LuMessage> m, const char* error) {
    if (!m) return handover_failed(error);
    if (m->value != uint32_t(LuMsg::DEV_ACK)) return handover_failed("DOCA_ERROR_INVALID_VALUE");
    s_.set_state(LuState::MIGRATED);
    channel_export();
  });
}

void LuActive::channel_export() {
  const std::vector<uint8_t> desc = lu_channel_export(s_.app());
  LuMessage m{LuMsg::CH_EXPORT, uint32_t(LuMsg::CH_EXPORT), {}};
  const uint32_t len = uint32_t(desc.size());
  m.data.resize(4);
  bytes::put_le32(m.data.data(), len);
  m.data.insert(m.data.end(), desc.begin(), desc.end());
  if (!s_.sock->send(s_.side, m)) return channel_rollback(nullptr, "DOCA_ERROR_IO_FAILED");
  s_.sock->recv(s_.side, thread_, s_.sec(VNET_LU_CH_TIMEOUT_SEC),
              [this](std::optional<LuMessage> r, const char* error) { channel_on_begin(r, error); });
}

void LuActive::channel_on_begin(std::optional<LuMessage> m, const char* error) {
  if (!m) return channel_rollback(nullptr, error);
  if (m->value == uint32_t(LuMsg::NACK))
    return channel_rollback("Channel LU: standby reports failure, rolling back", "DOCA_ERROR_ABORTED");
  if (m->value != uint32_t(LuMsg::CH_BEGIN)) return channel_rollback(nullptr, "DOCA_ERROR_INVALID_VALUE");
  // Yield primary, then stop the channel: PE1 drains what it holds, with the old handlers.
  AppShared& s = p_.shared();
  s.channel.set_primary(nullptr);
  s.ctx.event(p_.log().thread_path("vnet.lu"), "lu_channel").u64("pid", p_.pid()).str("op", "yield_primary");
  p_.pe1().hold_for_handover(false);
  thread_.wait_until([this] { return p_.pe1().idle() && s_.app().main_thread.idle(); }, s_.app().cost(timing::main_loop_ps));
  thread_.then(s_.app().cost(timing::lu_ch_stop_ps), [this] {
    const std::vector<uint8_t> state = lu_channel_write(lu_channel_snapshot(s_.app(), s_.app()));
    if (!s_.sock->send(s_.side, LuMessage{LuMsg::CH_BEGIN_ACK, uint32_t(LuMsg::CH_BEGIN_ACK), state}))
      return channel_rollback("Channel LU active: post-stop send/recv failed, rolling back", "DOCA_ERROR_IO_FAILED");
    s_.sock->recv(s_.side, thread_, s_.sec(VNET_LU_CH_TIMEOUT_SEC),
                [this](std::optional<LuMessage> r, const char* err) { channel_on_end(r, err); });
  });
}

void LuActive::channel_on_end(std::optional<LuMessage> m, const char* error) {
  if (!m || m->value != uint32_t(LuMsg::CH_END) || m->data.empty())
    return channel_rollback("Channel LU active: post-stop send/recv failed, rolling back",
                            m ? "DOCA_ERROR_INVALID_VALUE" : error);
  if (m->data[0] != 1) return channel_rollback("Channel LU: standby reports failure, rolling back", "DOCA_ERROR_ABORTED");
  s_.sock->send(s_.side, LuMessage{LuMsg::CH_END_ACK, uint32_t(LuMsg::CH_END_ACK), {}});
  s_.sock->close(s_.side);
  p_.shared().ctx.event(p_.log().thread_path("vnet.lu"), "lu_channel").u64("pid", p_.pid()).str("op", "destroyed");
  s_.mode = LuMode::NONE;
  p_.log().info(kMainThread, "LU handover complete -- process is idle (pid=%d), Ctrl+C to exit", int(p_.pid()));
  s_.note("idle");
}

void LuActive::channel_rollback(const char* line, const char* reason) {
  if (line) p_.log().error(kMainThread, "%s", line);
  p_.log().error(kMainThread, "Channel LU handover failed: %s (device LU succeeded)", reason);
  if (s_.sock) s_.sock->close(s_.side);
  // Reclaim: primary again, restarted, served by this process's PE1.
  AppShared& s = p_.shared();
  s.channel.set_primary(&p_.pe1());
  s.serving = &p_;
  p_.pe1().hold_for_handover(false);
  s.ctx.event(p_.log().thread_path("vnet.lu"), "lu_channel").u64("pid", p_.pid()).str("op", "reclaimed");
}

void LuActive::handover_failed(const char* reason) {
  if (failed_ || !s_.alive) return;
  failed_ = true;
  p_.log().error(kMainThread, "LU handover failed: %s", reason);
  rv_.shm.reset();
  process_cleanup();
}

void LuActive::process_cleanup() {
  // The process's own teardown (its engines destroyed), then it is gone.
  AppState& a = s_.app();
  if (!a.wq.shut_down()) a.wq.shutdown();
  a.wq.when_item_done([this] {
    thread_.then([this] {
      AppState& a = s_.app();
      for (unsigned i = 0; i < a.num_ep(); ++i)
        if (a.controllers[i].device_present && a.controllers[i].has_resources())
          p_.cleanup().controller_cleanup(i, true, thread_, kMainThread);
      thread_.then([this] {
        p_.msi().flush();
        s_.exit_process("LU handover failed");
      });
    });
  });
}

std::vector<unsigned> LuActive::exported_eps() const {
  std::vector<unsigned> eps;
  AppState& a = p_.state();
  for (unsigned i = 0; i < a.num_ep(); ++i)
    if (a.controllers[i].device_present) eps.push_back(i);
  return eps;
}

}  // namespace dpusim::vnet
