// The NIC's construction, its BAR regions, the devcmd window, the doorbells and the frame path.
#include "ionic/ionic_nic.h"

#include <algorithm>
#include <cstring>

#include "ionic/ionic_events.h"
#include "ionic/ionic_timing.h"
#include "ionic/le_bytes.h"
#include "net/wire.h"
#include "tlm/capabilities.h"

namespace dpusim::ionic {

using namespace sc_core;

IonicFunction::IonicFunction(const std::string& path, pcie::SimContext& ctx) : fn(path, ctx) {
  pcie::ConfigSpace& cfg = fn.cfg;
  pcie::init_type0_header(cfg, {PCI_VENDOR_ID_PENSANDO, PCI_DEVICE_ID_ERNIC, PCI_CLASS_NETWORK_ETHERNET, 1,
                                PCI_VENDOR_ID_PENSANDO, PCI_SUBSYSTEM_ID_ERNIC, 1 /* INTA# */});
  pcie::define_memory_bar(cfg, 0, IONIC_BAR0_SIZE, true, false);
  pcie::define_memory_bar(cfg, IONIC_BAR_DBELL, IONIC_BAR2_SIZE, true, false);
  msix_cap = pcie::add_msix_cap(cfg, IONIC_MSIX_MAX_VECTORS, 0, IONIC_BAR0_MSIX_TABLE_OFFSET, 0,
                                IONIC_BAR0_MSIX_PBA_OFFSET);
  cfg.seal();
}

IonicNic::IonicNic(sc_module_name name, pcie::SimContext& ctx, const NicOptions& options,
                   std::unique_ptr<p4::Engine> program)
    : IonicFunction(name.operator const char*(), ctx),
      EndpointBase(name, ctx, fn, timing::service_ps),
      options_(options),
      mac_(options.mac),
      intr_(ctx, this->name(), *this, [this](unsigned v) { return raise_msix(v); }),
      io_(*this),
      eth_(EthQueues::Ports{ctx, this->name(), io_, [this](NicFrame f) { from_guest(std::move(f)); },
                            [this](uint32_t intr) { intr_.add_credit(intr); },
                            [this](uint32_t intr) { intr_.assert_irq(intr); }}) {
  unsupported_by = "the ionic NIC";
  // dev_info: what ionic_dev_setup() checks before anything else.
  put_le32(&dev_info_[DEV_INFO_SIGNATURE], IONIC_DEV_INFO_SIGNATURE);
  dev_info_[DEV_INFO_VERSION] = IONIC_DEV_INFO_VERSION;
  dev_info_[DEV_INFO_ASIC_TYPE] = 0;  // IONIC_ASIC_TYPE_NONE
  dev_info_[DEV_INFO_ASIC_REV] = 0;
  dev_info_[DEV_INFO_FW_STATUS] = IONIC_FW_STS_F_RUNNING;
  put_le32(&dev_info_[DEV_INFO_FW_HEARTBEAT], 0);  // 0: "no heartbeat", which the driver treats as alive
  std::memcpy(&dev_info_[DEV_INFO_FW_VERSION], "rocm-ernic-1.0", 14);
  std::memcpy(&dev_info_[DEV_INFO_SERIAL_NUM], "rocm-ernic-emulated", 19);

  add_region({"dev_info", 0, IONIC_BAR0_DEV_INFO_REGS_OFFSET, DEV_INFO_BYTES,
              [this](uint64_t off, uint8_t* out, size_t n) { read_dev_info(off, out, n); }, nullptr});
  add_region({"dev_cmd", 0, IONIC_BAR0_DEV_CMD_REGS_OFFSET, DEV_CMD_REGS_BYTES,
              [this](uint64_t off, uint8_t* out, size_t n) { read_dev_cmd(off, out, n); },
              [this](uint64_t off, const uint8_t* in, size_t n) { write_dev_cmd(off, in, n); }});
  add_region({"intr_status", 0, IONIC_BAR0_INTR_STATUS_OFFSET, IONIC_BAR0_INTR_CTRL_OFFSET - IONIC_BAR0_INTR_STATUS_OFFSET,
              [this](uint64_t off, uint8_t* out, size_t n) { intr_.read_status(off, out, n); }, nullptr});
  add_region({"intr_ctrl", 0, IONIC_BAR0_INTR_CTRL_OFFSET, IONIC_MSIX_MAX_VECTORS * IONIC_INTR_CTRL_BYTES,
              [this](uint64_t off, uint8_t* out, size_t n) { intr_.read(off, out, n); },
              [this](uint64_t off, const uint8_t* in, size_t n) { intr_.write(off, in, n); }});
  add_msix(msix_cap, IONIC_MSIX_MAX_VECTORS, 0, IONIC_BAR0_MSIX_TABLE_OFFSET, IONIC_BAR0_MSIX_PBA_OFFSET);
  // "An access that straddles 0x8000 fails" (rocm-ernic): the register window ends where the
  // MSI-X table begins; an access across the table's or the PBA's boundary fails the same way.
  require_whole_accesses(0, "msix_table");
  require_whole_accesses(0, "msix_pba");
  add_region({"doorbells", IONIC_BAR_DBELL, 0, IONIC_BAR2_SIZE, nullptr,
              [this](uint64_t off, const uint8_t* in, size_t n) { write_doorbell(off, in, n); }});

  // The frame path: the in-band control endpoint holds the transmit slot first.
  if (options.inband_mac) {
    inband_ = std::make_unique<InbandEndpoint>(*options.inband_mac);
    tx_slot_.take([this](NicFrame& f) {
      if (!inband_->claim(f)) return false;
      ++counters_.inband_frames;
      ctx_.event(this->name(), events::inband_frame).u64("len", f.bytes.size()).str("dst", mac_text(inband_->mac()));
      return true;
    });
  }
  if (options.p4) {
    P4Attachment::Hooks hooks;
    hooks.defer = [this](std::function<void()> fn) { after(ctx_.ps(timing::p4_frame_ps), std::move(fn)); };
    hooks.to_guest = [this](NicFrame f) { eth_.to_guest(std::move(f)); };
    hooks.to_uplink = [this](NicFrame& f) { return to_uplink(f); };
    hooks.dropped = [this](NicFrame& f, const char* reason) {
      ++trace_p4_dropped_;
      note_frame_drop(ctx_, this->name(), f, reason);
    };
    hooks.observe = [this](size_t len, const P4Verdict& v) {
      auto e = ctx_.event(this->name(), events::p4_verdict);
      e.u64("in_port", v.in_port).u64("len", len);
      if (v.dropped) e.str("dropped", v.reason);
      else e.u64("egress_port", v.port);
    };
    const std::string summary = program ? program->summary() : std::string();
    p4_ = std::make_unique<P4Attachment>(tx_slot_, rx_slot_, std::move(program), std::move(hooks));
    if (!summary.empty()) {
      const std::string features = p4::feature_policy_name(options.features);
      ctx_.event(this->name(), "p4_load").str("source", options.program_name).str("features", features)
          .str("summary", summary);
      ctx_.event(this->name(), "log").str("level", "info")
          .str("msg", "rocm-ernic: P4 program loaded (" + features + " feature set): " + summary);
    }
    surface_ = std::make_unique<P4Surface>(ctx, this->name(), options.scope, options.features, *p4_, *this);
  }
  rdma_ = std::make_unique<RdmaEngine>(
      RdmaEngine::Env{ctx, this->name(), *this, intr_, ipv4_gid(options.ipv4)});
  if (options.fp8_impl != "cpp") {
    std::string error;
    if (!rdma_->set_fp8_impl(options.fp8_impl, &error))  // checked when the document was parsed
      throw std::logic_error(std::string(this->name()) + ": fp8-impl refused at build: " + error);
  }
  std::string chunk_error;
  if (!rdma_->set_fp8_chunk_bytes(options.fp8_chunk_bytes, &chunk_error))  // checked when the document was parsed
    throw std::logic_error(std::string(this->name()) + ": fp8-chunk-bytes refused at build: " + chunk_error);
  if (p4_) {
    rdma_->attach_program(p4_->engine());
    surface_->on_replaced = [this] { rdma_->attach_program(p4_->engine()); };
  }
}

IonicNic::~IonicNic() = default;

// ---- BAR0 ----------------------------------------------------------------------------------

void IonicNic::read_dev_info(uint64_t off, uint8_t* out, size_t n) const {
  for (size_t i = 0; i < n; ++i) out[i] = off + i < dev_info_.size() ? dev_info_[off + i] : 0;
}

void IonicNic::read_dev_cmd(uint64_t off, uint8_t* out, size_t n) const {
  for (size_t i = 0; i < n; ++i) out[i] = off + i < dev_cmd_.size() ? dev_cmd_[off + i] : 0;
}

void IonicNic::write_dev_cmd(uint64_t off, const uint8_t* in, size_t n) {
  for (size_t i = 0; i < n && off + i < dev_cmd_.size(); ++i) dev_cmd_[off + i] = in[i];
  // Any non-zero value written to the doorbell processes the command.
  const bool rang = off < DEV_CMD_DOORBELL + 4 && off + n > DEV_CMD_DOORBELL;
  if (!rang || get_le32(&dev_cmd_[DEV_CMD_DOORBELL]) == 0) return;
  if (devcmd_busy_) {
    ctx_.event(name(), "devcmd_ignored").str("reason", "a command is still running");
    return;
  }
  run_devcmd();
}

void IonicNic::run_devcmd() {
  devcmd_busy_ = true;
  std::array<uint8_t, IONIC_CMD_BYTES> cmd;
  std::copy_n(&dev_cmd_[DEV_CMD_CMD], IONIC_CMD_BYTES, cmd.begin());
  std::fill_n(&dev_cmd_[DEV_CMD_COMP], IONIC_COMP_BYTES, 0);
  after(ctx_.ps(timing::devcmd_ps), [this, cmd] {
    execute(cmd.data(), CmdPath::kDevcmd, &dev_cmd_[DEV_CMD_DATA], [this, op = cmd[0]](Comp comp) {
      // The driver polls done by MMIO: it sees it at the device's time in either mode.
      at_local_time([this, op, comp] {
        std::copy(comp.begin(), comp.end(), &dev_cmd_[DEV_CMD_COMP]);
        put_le32(&dev_cmd_[DEV_CMD_DOORBELL], 0);
        put_le32(&dev_cmd_[DEV_CMD_DONE], IONIC_DEV_CMD_DONE);
        devcmd_busy_ = false;
        ++counters_.devcmds;
        ctx_.event(name(), "devcmd").u64("opcode", op).str("cmd", ionic_opcode_name(op))
            .str("status", ionic_status_name(comp[COMP_STATUS]));
      });
    });
  });
}

// ---- Doorbells (BAR2) ----------------------------------------------------------------------

void IonicNic::write_doorbell(uint64_t off, const uint8_t* in, size_t n) {
  if (n != 8 || (off & 7)) {
    ctx_.event(name(), "doorbell_ignored").hex("offset", off).u64("len", n).str("reason", "not an aligned 8-byte write");
    return;
  }
  const Doorbell db = decode_doorbell(off, get_le64(in));
  // The admin queue's doorbell serves queue 0 whatever its qid (rocm-ernic); the notify
  // queue's is ignored (it produces no events).
  if (db.qtype >= IONIC_RDMA_QTYPE_AQ && db.qtype <= IONIC_RDMA_QTYPE_EQ) return rdma_->doorbell(db);
  const uint32_t qid = db.qtype == IONIC_QTYPE_ADMINQ ? 0 : db.qid;
  if (db.qtype >= IONIC_QTYPE_ETH_MAX || qid >= IONIC_ETH_QCOUNT || !eth_.queue(db.qtype, qid).valid ||
      db.qtype == IONIC_QTYPE_NOTIFYQ || db.qtype == IONIC_QTYPE_EQ) {
    ctx_.event(name(), "doorbell_ignored").hex("offset", off).u64("qtype", db.qtype).u64("qid", db.qid)
        .u64("p_index", db.p_index);
    return;
  }
  switch (db.qtype) {
    case IONIC_QTYPE_ADMINQ: {
      EthQueue& q = eth_.queue(db.qtype, qid);
      q.prod = uint16_t(db.p_index % q.depth);
      trace_adminq_pending_ = q.pending();
      return service_adminq();
    }
    case IONIC_QTYPE_TXQ:
      return eth_.ring_tx(qid, db.p_index);
    default:  // RX: the producer only; buffers are taken as frames arrive (queue 0 only)
      return eth_.ring_rx(qid, db.p_index);
  }
}

// ---- The frame path ------------------------------------------------------------------------

void IonicNic::frame_arrived(net::Frame wf) {
  NicFrame f{std::move(wf.bytes), wf.id, true};
  if (rx_slot_.offer(f)) return;  // the P4 pipeline has it
  eth_.to_guest(std::move(f));
}

void IonicNic::from_guest(NicFrame frame) {
  if (tx_slot_.offer(frame)) return;  // the in-band endpoint or the P4 pipeline has it
  if (!to_uplink(frame)) {
    // No peer: rocm-ernic's transmit is a sink.
    ctx_.event(name(), "frame_drop").str("reason", "no_uplink").u64("len", frame.bytes.size());
  }
}

bool IonicNic::to_uplink(NicFrame& frame) {
  if (!wire) return false;
  if (frame.from_wire) ctx_.checker.frame_received();  // consumed here; the wire counts the new one
  ++counters_.to_wire;
  wire->send(*this, std::move(frame.bytes), dma().local_offset());
  return true;
}

// ---- Outputs -------------------------------------------------------------------------------

uint64_t IonicNic::frames_in_flight() const {
  return eth_.wire_frames() + (p4_ ? p4_->wire_frames_in_pipeline() : 0);
}

IonicNic::Counters IonicNic::counters() const {
  Counters c = counters_;
  const EthQueues::Counters& q = eth_.counters();
  c.tx_frames = q.tx_frames;
  c.tx_errors = q.tx_errors;
  c.rx_frames = q.rx_frames;
  c.rx_dropped = q.rx_dropped;
  return c;
}

void IonicNic::trace_signals(sc_trace_file* vcd) {
  const std::string n = name();
  sc_trace(vcd, trace_adminq_pending_, n + ".adminq_pending", 16);
  sc_trace(vcd, eth_.trace.tx_pending, n + ".tx_pending", 16);
  sc_trace(vcd, eth_.trace.rx_posted, n + ".rx_posted", 16);
  sc_trace(vcd, eth_.trace.inbox, n + ".rx_inbox", 16);
  sc_trace(vcd, eth_.trace.tx_frames, n + ".tx_frames", 32);
  sc_trace(vcd, eth_.trace.rx_frames, n + ".rx_frames", 32);
  sc_trace(vcd, intr_.trace_pending, n + ".intr_pending", 32);
  if (p4_) sc_trace(vcd, trace_p4_dropped_, n + ".p4_dropped", 32);
  sc_trace(vcd, rdma_->trace_pending(), n + ".rdma_pending", 32);
}

void IonicNic::shutdown() {
  rdma_->flush_log();
  if (!p4_) return;
  surface_->flush_log();
  ctx_.event(name(), "log").str("level", "info").str("msg", p4_->stats_line());
}

}  // namespace dpusim::ionic
