// The standby's restore (vnet_pci_dev_lu.c; the DOCA guide §7.9), on its main thread from its
// start until it becomes the next active:
// phase 1 (pre-copy, while the active still serves): the lock (one standby), connect, wait
//   <= 300 s for the cmd_fd ('F'), open and validate the SHM, rebuild the DOCA device, take MTU,
//   max QPs, queue size and base MAC from the export (overriding the CLI), build everything but
//   the TLP channel, reattach each EP to its representor by vhca_id, import each offload engine
//   from its blob, replay each device (status forced to 0x0F, features, MQ, QPs, VQ shadows;
//   engine started, VQs created, IO context, active VQs configured and started, not enabled),
//   DEV_READY;
// phase 2: per EP, DEV_GO (<= 300 s) then a thread enabling its engine (the enables run in
//   parallel, pipelined behind the active's per-device stops), joined, DEV_ACK, SHM unlinked;
// channel LU: CH_EXPORT (length 1..1 MiB) -> secondary channel -> CH_BEGIN -> CH_BEGIN_ACK
//   (checked, applied) -> primary -> CH_END(1) -> CH_END_ACK; NACK or CH_END(0) on failure;
// chaining: lock released, ACG queue initialised, active mode, listener, progress loop.
// A standby in hotplug mode creates no device at startup, so its replay finds none ("LU replay:
// virtio_device is NULL for device 0"); the export's hot-plug additions (populated slots,
// presence bitmap, base MAC) are written and validated but not used (docs/fidelity.md).
#include "vnet/app/cvq_handler.h"
#include "vnet/switch/dsp_msi.h"
#include "vnet/lu/live_update.h"
#include "vnet/lu/lu_channel.h"
#include "vnet/lu/lu_transfer.h"
#include "vnet/app/pe1.h"
#include "vnet/switch/slots.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

LuStandby::LuStandby(LuSession& s) : s_(s), p_(s.p), rv_(s.rv), thread_(s.thread) {}

void LuStandby::run(const VnetOptions& cli) {
  cli_ = cli;
  s_.mode = LuMode::STANDBY;
  s_.note("start", "lu-mode standby");
  thread_.then(p_.shared().ctx.ps(timing::lu_process_start_ps), [this] {
    AppProcess::log_banner(p_.log(), cli_);
    connect();
  });
}

void LuStandby::fail(const char* line) {
  if (line) p_.log().error(kMainThread, "%s", line);
  s_.exit_process("LU restore failed");
}

void LuStandby::connect() {
  AppLog& log = p_.log();
  if (rv_.lock_pid != 0) {
    log.error(kMainThread, "Another standby is already waiting; only one standby allowed");
    return s_.exit_process("lock held by pid " + std::to_string(rv_.lock_pid));
  }
  rv_.lock_pid = p_.pid();
  log.info(kMainThread, "Restore early 1/4: connecting to active");
  if (!rv_.listener || rv_.backlog || s_.step_fails("standby.connect")) {
    log.error(kMainThread, "LU standby: connect to %s failed: %s", kLuSocketPath, "DOCA_ERROR_CONNECTION_ABORTED");
    return fail(nullptr);
  }
  s_.sock = std::make_shared<LuSocket>(p_.shared().ctx, p_.shared().later, rv_.faults, p_.pid(), rv_.listener->pid());
  s_.side = 0;
  rv_.backlog = s_.sock;
  if (rv_.on_connect) {
    auto accept = std::move(rv_.on_connect);
    rv_.on_connect = nullptr;
    accept();
  }
  await_fd();
}

void LuStandby::await_fd() {
  p_.log().info(kMainThread, "Restore early 2/4: waiting for cmd_fd from active");
  s_.note("waiting");
  s_.sock->recv(s_.side, thread_, s_.sec(VNET_LU_TIMEOUT_SEC), [this](std::optional<LuMessage> m, const char* error) {
    if (!m) {
      if (std::string(error) == "DOCA_ERROR_TIME_OUT") return fail("Timed out waiting for LU trigger from active");
      p_.log().error(kMainThread, "LU standby: receiving cmd_fd failed: %s", error);
      return fail(nullptr);
    }
    if (m->type != LuMsg::CMD_FD || m->value != kLuCmdFdMarker) {
      p_.log().error(kMainThread, "LU standby: invalid cmd_fd marker 0x%02x (expected 'F')", m->value);
      return fail(nullptr);
    }
    open_shm();
  });
}

void LuStandby::open_shm() {
  AppLog& log = p_.log();
  log.info(kMainThread, "Restore early 3/4: opening SHM");
  if (!rv_.shm || s_.step_fails("standby.shm")) {
    log.error(kMainThread, "LU standby: SHM %s not available", kLuShmName);
    return fail(nullptr);
  }
  const std::vector<uint8_t> shm = *rv_.shm;
  thread_.then(s_.copy_cost(shm.size()), [this, shm] {
    std::string error;
    if (!lu_export_read(shm, export_, &error)) {
      p_.log().error(kMainThread, "LU standby: SHM validation failed: %s", error.c_str());
      return fail(nullptr);
    }
    p_.log().info(kMainThread, "Restore early 4/4: reconstructing doca_dev");
  });
  thread_.then(p_.shared().ctx.ps(timing::lu_dev_open_ps), [this] {
    if (!s_.alive) return;
    if (s_.step_fails("standby.dev")) {
      p_.log().error(kMainThread, "LU standby: doca_dev reconstruction failed: %s", "DOCA_ERROR_DRIVER");
      return fail(nullptr);
    }
    // Device 0 of the export overrides the command line.
    const LuDeviceRecord& d0 = export_.devices[0];
    cli_.mtu = d0.mtu;
    cli_.max_queue_pairs = d0.max_qps;
    cli_.queue_size = d0.queue_size;
    cli_.mac = export_.base_mac;
    cli_.mac_addr = mac_str(cli_.mac);
    p_.log().info(kMainThread, "LU standby: config overridden from SHM (qps=%u, qs=%u, mtu=%u, mac=%s)",
                  unsigned(cli_.max_queue_pairs), unsigned(cli_.queue_size), unsigned(cli_.mtu), cli_.mac_addr.c_str());
    build();
  });
}

void LuStandby::build() {
  p_.build(cli_, false);
  p_.pe1().hold_for_handover(true);  // the main thread is restoring, not in its progress loop
  AppState& a = s_.app();
  a.log.info(kMainThread, "LU standby: skipping TLP channel setup (channel LU handled after device LU)");
  for (unsigned i = 0; i < a.num_ep(); ++i) p_.attach(i);
  // Only static mode creates devices at startup: a standby in hot-plug mode has none, and its
  // replay fails (docs/fidelity.md, Live update). Device k's endpoint is found by its vhca_id.
  eps_.assign(export_.devices.size(), ~0u);
  if (a.opt.static_mode()) p_.create_static_devices(false);
  // Each EP reattaches to its existing representor: the one with the saved vhca_id.
  for (unsigned k = 0; k < eps_.size(); ++k) {
    thread_.then(a.cost(timing::lu_rep_attach_ps), [this, k] {
      if (!s_.alive) return;
      // The representors are the emulated functions (one per endpoint, lu_vhca_id()).
      const uint32_t vhca = export_.devices[k].vhca_id;
      for (unsigned i = 0; i < s_.app().num_ep(); ++i)
        if (lu_vhca_id(i) == vhca) return void(eps_[k] = i);
      p_.log().warn(kMainThread, "LU: no existing rep matched vhca_id=0x%x (found %u reps)", vhca, s_.app().num_ep());
      fail(nullptr);
    });
  }
  // Each offload engine from its export blob.
  for (unsigned k = 0; k < eps_.size(); ++k) {
    thread_.then(a.cost(timing::lu_engine_import_ps), [this, k] {
      if (!s_.alive) return;
      LuEngineBlob blob;
      if (!lu_engine_blob_read(export_.devices[k].blob, blob) || s_.step_fails("standby.engine_import")) {
        p_.log().error(kMainThread, "LU standby: offload engine import failed: %s", "DOCA_ERROR_INVALID_VALUE");
        return fail(nullptr);
      }
      p_.log().info(kMainThread, "VNet offload engine created from export blob (%zu bytes)", export_.devices[k].blob.size());
      p_.log().info(kMainThread, "VNet offload engine imported: MTU, MAC, num_queues already set from export blob");
    });
  }
  staged_.assign(eps_.size(), StagedEngine{});
  for (unsigned k = 0; k < eps_.size(); ++k) thread_.then([this, k] { replay(k); });
  thread_.then([this] {
    if (!s_.alive) return;
    p_.log().info(kMainThread, "LU replay complete: %u devices restored", unsigned(eps_.size()));
    s_.sock->send(s_.side, LuMessage{LuMsg::DEV_READY, uint32_t(LuMsg::DEV_READY), {}});
    phase2();
  });
}

void LuStandby::replay(unsigned k) {
  if (!s_.alive) return;
  AppState& a = s_.app();
  const unsigned i = eps_[k];
  if (i >= a.num_ep() || !a.controllers[i].device_present) {
    p_.log().error(kMainThread, "LU replay: virtio_device is NULL for device %u", k);
    return fail(nullptr);
  }
  const LuDeviceRecord& r = export_.devices[k];
  const VirtioPciDevice& dev = *a.devices[i];
  const std::vector<VqShadow> shadows = lu_restore(r, a, i);
  // The engine prepared: started, VQs created, IO context, the active VQs set and started.
  StagedEngine& s = staged_[k];
  const unsigned n = dev.num_queues(), cvq = 2 * dev.max_queue_pairs();
  s.created.assign(n, false);
  s.started_vq.assign(n, false);
  s.conf.assign(n, std::nullopt);
  thread_.then(a.cost(timing::work_engine_start_ps), [&s] { s.started = true; });
  for (unsigned q = 0; q < n; ++q) {
    if (q == cvq && !r.mq) continue;
    if (q > cvq) continue;
    thread_.then(a.cost(timing::work_vq_create_ps), [&s, q] { s.created[q] = true; });
  }
  thread_.then_if([mq = r.mq] { return mq; }, a.cost(timing::work_io_ctx_create_ps), [&s] { s.io_ctx = true; });
  for (unsigned q = 0; q < n; ++q) {
    const bool active = q < 2 * r.active_qps || (r.mq && q == cvq);
    if (!active) continue;
    const VqShadow sh = shadows[q];
    thread_.then(a.cost(timing::work_vq_set_conf_ps),
                 [&s, q, sh] { s.conf[q] = VqConf{sh.size, sh.msix, sh.desc, sh.driver, sh.device}; });
    thread_.then(a.cost(timing::work_vq_start_ps), [&s, q] { s.started_vq[q] = true; });
  }
  thread_.then([this, k, i, mq = r.mq] {
    Controller& c = s_.app().controllers[i];
    c.offload_engine_started = c.vqs_created = true;
    c.cvq_created = c.io_ctx_started = mq;
    c.initialization_in_progress = !mq;  // single-QP mode never finishes its initialisation
    p_.log().info(kMainThread, "LU replay: device %u VQs prepared (engine not yet enabled)", k);
  });
}

void LuStandby::phase2() {
  enabled_ok_.assign(eps_.size(), false);
  go_received_ = 0;
  enables_.clear();
  auto next = std::make_shared<std::function<void()>>();
  *next = [this, next] {
    if (!s_.alive) return;
    if (go_received_ == eps_.size()) return;
    s_.sock->recv(s_.side, thread_, s_.sec(VNET_LU_TIMEOUT_SEC), [this, next](std::optional<LuMessage> m, const char* error) {
      if (!m || m->value != uint32_t(LuMsg::DEV_GO)) return phase2_failed(m ? "DOCA_ERROR_INVALID_VALUE" : error);
      enable(go_received_++);
      (*next)();
    });
  };
  (*next)();
}

void LuStandby::enable(unsigned k) {
  enables_.push_back(std::make_unique<EnableThread>(p_.shared().later));
  EnableThread& t = *enables_.back();
  AppState& a = s_.app();
  const unsigned i = eps_[k];
  t.activity.then(a.cost(timing::work_engine_enable_ps), [this, k, i] {
    if (!s_.alive) return;
    if (s_.step_fails("standby.enable")) return;
    // The engine is this process's from now on: prepared VQs installed at their ring
    // positions, the CVQ bound to this process's IO context, then enabled.
    AppState& a = s_.app();
    VnetEndpoint& e = *p_.shared().engines[i];
    const StagedEngine& s = staged_[k];
    p_.shared().engine_owner[i] = &p_;
    e.vqs().engine_start();
    for (unsigned q = 0; q < s.created.size(); ++q) {
      if (!s.created[q]) continue;
      e.vqs().vq_resume(q);
      if (s.conf[q]) e.vqs().vq_set_conf(q, *s.conf[q]);
      if (s.started_vq[q]) e.vqs().vq_start(q);
    }
    e.set_features(a.devices[i]->negotiated_features());
    if (s.io_ctx) {
      const unsigned cvq = 2 * a.devices[i]->max_queue_pairs();
      e.cvq().bind(cvq, [this, i](CtrlReq req) { p_.cvq().ctrl_req_arrived(i, std::move(req)); });
    }
    e.vqs().engine_enable();
    a.controllers[i].engine_enabled = true;
    a.controllers[i].reset_since_driver_ok = false;
    enabled_ok_[k] = true;
  });
  t.activity.then_if([this, k] { return s_.alive && enabled_ok_[k]; }, a.cost(timing::work_counters_ps),
                     [this, i] { s_.app().controllers[i].counters = true; });
  t.activity.then([this, &t] {
    t.done = true;
    if (!s_.alive || go_received_ < eps_.size()) return;
    for (const auto& other : enables_)
      if (!other->done) return;
    // Joined.
    for (bool ok : enabled_ok_)
      if (!ok) return phase2_failed("DOCA_ERROR_DRIVER");
    p_.log().info(kMainThread, "LU phase2: all %u engines enabled -- traffic restored", unsigned(eps_.size()));
    s_.sock->send(s_.side, LuMessage{LuMsg::DEV_ACK, uint32_t(LuMsg::DEV_ACK), {}});
    rv_.shm.reset();
    thread_.then([this] { channel(); });
  });
}

void LuStandby::phase2_failed(const char* why) {
  if (phase2_failed_ || !s_.alive) return;
  phase2_failed_ = true;
  AppLog& log = p_.log();
  const unsigned n = unsigned(eps_.size());
  log.error(kMainThread,
            "LU phase2: enable failed -- %u/%u threads spawned, devices 0..%u received DEV_GO. No fallback, partial state.",
            go_received_, n, go_received_ ? go_received_ - 1 : 0);
  for (unsigned k = 0; k < n; ++k) log.error(kMainThread, "  device %u: %s", k, enabled_ok_[k] ? "OK" : "FAILED");
  log.error(kMainThread, "LU restore failed: %s", why);
  s_.exit_process("LU phase2 failed");
}

void LuStandby::channel() {
  s_.sock->recv(s_.side, thread_, s_.sec(VNET_LU_CH_TIMEOUT_SEC), [this](std::optional<LuMessage> m, const char* error) {
    AppLog& log = p_.log();
    if (!m || m->value != uint32_t(LuMsg::CH_EXPORT) || m->data.size() < 4) {
      log.error(kMainThread, "Channel LU standby: no channel export: %s", m ? "DOCA_ERROR_INVALID_VALUE" : error);
      return finish_channel(false);
    }
    const uint32_t len = uint32_t(m->data[0]) | uint32_t(m->data[1]) << 8 | uint32_t(m->data[2]) << 16 |
                         uint32_t(m->data[3]) << 24;
    if (len == 0 || len > kLuChannelExportMax || len != m->data.size() - 4) {
      log.error(kMainThread, "Channel LU standby: invalid export length %u (1..%u)", len, kLuChannelExportMax);
      s_.sock->send(s_.side, LuMessage{LuMsg::NACK, uint32_t(LuMsg::NACK), {}});
      return finish_channel(false);
    }
    // A secondary channel from the export, connected to PE1 and started.
    thread_.then(s_.app().cost(timing::lu_ch_create_ps), [this] {
      if (s_.step_fails("standby.ch_create")) {
        p_.log().error(kMainThread, "Channel LU standby: secondary channel creation failed: %s", "DOCA_ERROR_DRIVER");
        s_.sock->send(s_.side, LuMessage{LuMsg::NACK, uint32_t(LuMsg::NACK), {}});
        return finish_channel(false);
      }
      s_.sock->send(s_.side, LuMessage{LuMsg::CH_BEGIN, uint32_t(LuMsg::CH_BEGIN), {}});
      s_.sock->recv(s_.side, thread_, s_.sec(VNET_LU_CH_TIMEOUT_SEC),
                  [this](std::optional<LuMessage> r, const char* err) { on_begin_ack(r, err); });
    });
  });
}

void LuStandby::on_begin_ack(std::optional<LuMessage> m, const char* error) {
  AppLog& log = p_.log();
  auto end_failed = [this](const char* why) {
    p_.log().error(kMainThread, "Channel LU standby: %s", why);
    s_.sock->send(s_.side, LuMessage{LuMsg::CH_END, uint32_t(LuMsg::CH_END), {0}});
    finish_channel(false);
  };
  if (!m) {
    log.error(kMainThread, "Channel LU standby: CH_BEGIN_ACK not received: %s", error);
    return finish_channel(false);
  }
  if (m->value != uint32_t(LuMsg::CH_BEGIN_ACK)) return end_failed("unexpected message instead of CH_BEGIN_ACK");
  LuChannelState s;
  std::string why;
  if (!lu_channel_read(m->data, s, &why)) return end_failed(why.c_str());
  thread_.then(s_.copy_cost(m->data.size()), [this, s, end_failed] {
    std::string why;
    if (s_.step_fails("standby.ch_apply")) return end_failed("applying the channel state failed");
    if (!lu_channel_apply(s, s_.app(), s_.app(), &why)) return end_failed(why.c_str());
    // Primary: the firmware serves this process's images, the channel delivers to its PE1.
    AppShared& sh = p_.shared();
    for (unsigned i = 0; i < s_.app().num_ep(); ++i) sh.engines[i]->rebind_function(s_.app().devices[i]->images.virtio());
    sh.serving = &p_;
    sh.channel.set_primary(&p_.pe1());
    sh.ctx.event(p_.log().thread_path("vnet.lu"), "lu_channel").u64("pid", p_.pid()).str("op", "primary");
    s_.sock->send(s_.side, LuMessage{LuMsg::CH_END, uint32_t(LuMsg::CH_END), {1}});
    // CH_END_ACK: a missing one changes nothing, this process stays primary.
    s_.sock->recv(s_.side, thread_, s_.sec(VNET_LU_CH_TIMEOUT_SEC),
                [this](std::optional<LuMessage>, const char*) { finish_channel(true); });
  });
}

void LuStandby::finish_channel(bool) { thread_.then([this] { chain(); }); }

void LuStandby::chain() {
  if (!s_.alive) return;
  AppLog& log = p_.log();
  s_.sock->close(s_.side);
  s_.sock.reset();
  rv_.lock_pid = 0;
  if (s_.step_fails("standby.acg_init")) {
    log.error(kMainThread, "Channel LU: ACG queue init failed: %s", "DOCA_ERROR_NO_MEMORY");
  } else {
    if (!s_.app().opt.static_mode()) log.info(kMainThread, "ACG enabled for MSI interrupts");
    p_.msi().init();
    p_.msi().start();
  }
  log.info(kMainThread, "Transitioning from standby to active mode (chainable LU)");
  s_.state = LuState::INITIALIZED;
  s_.signalled = false;
  s_.set_mode(LuMode::ACTIVE);
  log.info(kMainThread, "LU restore complete -- process is active (pid=%d)", int(p_.pid()));
  s_.note("active");
  p_.pe1().hold_for_handover(false);  // the progress loop
}

}  // namespace dpusim::vnet
