// Device commands as the firmware decodes them: which handler a 64-byte command goes to on
// each path (the BAR0 devcmd window or the Ethernet admin queue), the fields each handler
// reads, and the identity blocks it answers with. Pure functions of the command bytes: the
// device (ionic_nic.h) executes the plan, the fuzz harness (fuzz/fuzz_ionic_devcmd.cpp) holds
// the decoder to its rules.
//
// What each opcode does follows rocm-ernic (ionic_eth_emu.c, ROCm/rocm-ernic):
//  - devcmd window: NOP, IDENTIFY, INIT/RESET/GETATTR/SETATTR, PORT_* (PORT_INIT publishes the
//    port info by DMA), LIF_IDENTIFY, LIF_INIT (publishes the link status by DMA), LIF_RESET,
//    LIF_GETATTR/SETATTR (only the MAC is stateful), Q_IDENTIFY, Q_INIT, Q_CONTROL (success,
//    nothing done), RDMA 50-53; any other opcode: status 2 (EOPCODE);
//  - admin queue: Q_INIT, RDMA 50-53, LIF_GETATTR/SETATTR; every other opcode completes with
//    status 0 and a zeroed completion (RX_MODE_SET, RX_FILTER_*, unknown ones);
//  - on both paths, opcodes 70-72 go to the P4 control surface when it is registered (an
//    operator granted a scope); otherwise they are unknown like any other.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "ionic/ionic_if.h"

namespace dpusim::ionic {

enum class CmdPath { kDevcmd, kAdminq };

enum class CmdKind {
  kSuccess,       // completes with status 0, nothing done
  kUnknown,       // status 2 (devcmd window)
  kIdentify,
  kLifIdentify,
  kLifInit,
  kLifReset,
  kLifGetattr,
  kLifSetattr,
  kPortInit,
  kPortIdentify,  // success, the data area zeroed
  kQIdentify,
  kQInit,
  kRdma,          // 50-53: the RDMA devcmds
  kP4,            // 70-72: the P4 control surface
};
const char* cmd_kind_name(CmdKind kind);

// struct ionic_q_init_cmd, decoded.
struct QInit {
  uint8_t type = 0;
  uint8_t ver = 0;
  uint32_t index = 0;
  uint16_t pid = 0;
  uint16_t intr_index = 0;
  uint16_t flags = 0;
  uint8_t ring_size = 0;  // log2 of the depth
  uint64_t ring_base = 0, cq_ring_base = 0, sg_ring_base = 0;
  // What rocm-ernic stores: type < 5, index < 4, ring_size < 16. Anything else still
  // completes successfully and stores nothing; `reason` says why.
  bool storable(std::string* reason) const;
};

struct CmdPlan {
  uint8_t opcode = 0;
  CmdKind kind = CmdKind::kUnknown;
  uint16_t lif_index = 0;  // LIF_INIT, LIF_RESET
  uint64_t info_pa = 0;    // LIF_INIT, PORT_INIT
  uint8_t attr = 0;        // LIF_GETATTR/SETATTR
  uint8_t qtype = 0;       // Q_IDENTIFY
  QInit q;                 // Q_INIT
};

// Which handler `cmd` goes to on `path`; `p4_registered` says whether the P4 control surface
// answers 70-72.
CmdPlan plan_command(const uint8_t* cmd, CmdPath path, bool p4_registered);
QInit decode_q_init(const uint8_t* cmd);

// The answers written into the devcmd data area.
void build_dev_identity(uint8_t* data);  // DEV_ID_BYTES, union ionic_dev_identity
// DEV_CMD_DATA_BYTES: union ionic_lif_identity with the station MAC and capabilities.
void build_lif_identity(uint8_t* data, const std::array<uint8_t, 6>& mac, uint64_t capabilities);
void build_q_identity(uint8_t* data, uint8_t qtype);  // Q_ID_BYTES

// The blocks written into guest memory by DMA.
std::array<uint8_t, PORT_INFO_PUBLISHED_BYTES> port_info();   // at PORT_INIT's info_pa
std::array<uint8_t, LIF_STATUS_BYTES> lif_status();           // at LIF_INIT's info_pa + 256

// A doorbell write (BAR2): the queue type is the slot in its page, the value
// qid << 24 | ring << 16 | p_index (qid [31:24] | [47:32] << 8).
struct Doorbell {
  uint8_t qtype = 0;
  uint32_t qid = 0;
  uint8_t ring = 0;
  uint16_t p_index = 0;
  uint32_t pid = 0;  // the doorbell page
};
Doorbell decode_doorbell(uint64_t bar_offset, uint64_t value);

}  // namespace dpusim::ionic
