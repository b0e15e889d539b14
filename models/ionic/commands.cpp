// Device commands, executed as devcmd.h plans them, on either path.
#include <cstring>

#include "ionic/ionic_nic.h"
#include "ionic/le_bytes.h"

namespace dpusim::ionic {

void IonicNic::execute(const uint8_t* cmd, CmdPath path, uint8_t* data, std::function<void(Comp)> done) {
  const CmdPlan p = plan_command(cmd, path, surface_ && surface_->registered());
  Comp comp{};
  switch (p.kind) {
    case CmdKind::kSuccess:
      break;
    case CmdKind::kRdma:
      comp = rdma_->devcmd(cmd);
      break;
    case CmdKind::kUnknown:
      comp[COMP_STATUS] = IONIC_RC_EOPCODE;
      ctx_.event(name(), "log").str("level", "warning")
          .str("msg", "ionic_eth_emu: unknown opcode=" + std::to_string(p.opcode));
      break;
    case CmdKind::kIdentify:
      build_dev_identity(data);
      comp[1] = 1;  // version
      break;
    case CmdKind::kLifIdentify: {
      uint64_t caps = IONIC_LIF_CAP_ETH | IONIC_LIF_CAP_RDMA;
      // The capability is keyed on the surface being registered, so the two cannot disagree.
      if (surface_ && surface_->registered()) caps |= IONIC_LIF_CAP_P4;
      build_lif_identity(data, mac_, caps);
      comp[1] = 1;
      break;
    }
    case CmdKind::kLifInit:
      // The link status the driver reads out of lif_info: without it the carrier stays off.
      if (p.info_pa) {
        const auto status = lif_status();
        dma().write(p.info_pa + IONIC_LIF_INFO_STATUS, status.data(), status.size());
      }
      lif_initialized_ = true;
      put_le16(&comp[2], p.lif_index);  // hw_index
      break;
    case CmdKind::kLifReset:
      lif_initialized_ = false;
      break;
    case CmdKind::kLifGetattr:
      if (p.attr == IONIC_LIF_ATTR_MAC) std::memcpy(&comp[LIF_ATTR_VALUE], mac_.data(), 6);
      break;
    case CmdKind::kLifSetattr:
      if (p.attr == IONIC_LIF_ATTR_MAC) std::memcpy(mac_.data(), cmd + LIF_ATTR_VALUE, 6);
      break;
    case CmdKind::kPortIdentify:
      // "success, zero data" (rocm-ernic): union ionic_port_identity fills the data area.
      std::memset(data, 0, DEV_CMD_DATA_BYTES);
      break;
    case CmdKind::kPortInit:
      if (p.info_pa) {
        const auto info = port_info();
        dma().write(p.info_pa, info.data(), info.size());
      }
      break;
    case CmdKind::kQIdentify:
      build_q_identity(data, p.qtype);
      break;
    case CmdKind::kQInit:
      eth_.q_init(p.q, comp);
      break;
    case CmdKind::kP4:
      return surface_->execute(cmd, std::move(done));
  }
  done(comp);
}

}  // namespace dpusim::ionic
