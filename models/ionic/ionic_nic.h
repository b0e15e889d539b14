// The ionic NIC as the ROCm rocm-ernic emulator presents it to a guest running ionic.ko (PCI
// identity and BARs, the devcmd protocol, the Ethernet queues, doorbells, interrupts), with
// the P4 engine in its datapath and the guest's P4 control surface. Built on the endpoint base
// (tlm/endpoint_base.h): this class holds the device's registers and firmware behaviour only.
//
//  PCI: vendor 0x1dd8, device 0x100a, subsystem 0x1dd8:0x5400, class 02/00/00, type 0 header,
//  one INTx pin, MSI-X with 32 vectors (table at BAR0 + 0x8000, PBA at BAR0 + 0xA000), no PCI
//  Express capability (rocm-ernic advertises none).
//  BAR0 (64-bit, 64 KiB): dev_info at 0x0000 ('DEVI', fw_status RUNNING, heartbeat 0), the
//  devcmd block at 0x0800 (doorbell, done, cmd, comp, data at 0x0888..0x0FFF), the interrupt
//  status bitmap at 0x1000, the interrupt control blocks at 0x2000 (intr_ctrl.h).
//  BAR2 (64-bit, 4 MiB): doorbell pages, 4 KiB each; a doorbell is an 8-byte write of
//  qid << 24 | ring << 16 | p_index at page + 8 × qtype.
//
//  Device commands (devcmd.h) run after ionic.devcmd_ps on the devcmd window and after
//  ionic.adminq_cmd_ps each on the admin queue; a command that writes guest memory (PORT_INIT,
//  LIF_INIT, the P4 surface) completes after its DMA is issued.
//  Queues live in guest memory and are reached by DMA: the admin queue (64-byte commands,
//  16-byte completions; adminq.cpp), the notify queue (accepted, never written: rocm-ernic
//  produces no events), up to four TX and four RX queues (16-byte descriptors and completions;
//  TX scatter-gather lists of 8 elements), which the Ethernet queue set serves (eth_queues.h).
//  Every completion ring starts with colour 1 and flips it each time the ring wraps. A queue's
//  interrupt is asserted once per batch of completions.
//  Received frames go to RX queue 0 only (rocm-ernic); they wait, at most 256, for a posted
//  buffer; one larger than its buffer is dropped.
//
//  RDMA (rdma_engine.h): devcmds 50-53 on both paths, doorbells of qtypes 5-9, the datapath
//  and the mesh port; with an RDMA program loaded, every send work request runs the P4 RDMA
//  decision path.
//
//  The frame path: a frame the guest transmits is offered to the transmit filter slot
//  (frame_filter.h): the in-band control endpoint, then the P4 pipeline when it is attached
//  (p4_attachment.h), or else the uplink wire. A frame from the wire is offered to the receive
//  slot (the pipeline) or else goes to the guest.
#pragma once

#include <systemc>

#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dpusim/p4/engine.h"
#include "ionic/devcmd.h"
#include "ionic/dma_io.h"
#include "ionic/eth_queues.h"
#include "ionic/frame_filter.h"
#include "ionic/intr_ctrl.h"
#include "ionic/p4_attachment.h"
#include "ionic/p4_surface.h"
#include "ionic/rdma_engine.h"
#include "ionic/rdma_mem.h"
#include "net/net_end.h"
#include "tlm/endpoint_base.h"
#include "tlm/function.h"

namespace dpusim::ionic {

struct NicOptions {
  std::array<uint8_t, 6> mac{};                       // the station MAC
  bool p4 = false;                                    // the engine is attached
  std::string program_name;                           // for the log ("loopback.json")
  std::string program_text;                           // bmv2 JSON, already validated; may be empty
  p4::FeaturePolicy features = p4::FeaturePolicy::kErnic;  // what the slot's and the guest's programs may use
  P4Scope scope = P4Scope::kNone;                     // the operator's grant to the guest
  std::optional<std::array<uint8_t, 6>> inband_mac;   // the in-band control endpoint's MAC
  uint32_t ipv4 = 0;                                  // its address: the RoCE GID on the mesh
  std::string fp8_impl = "cpp";                       // the RDMA path's fp8 unit (rtl/fp8_impl.h)
  size_t fp8_chunk_bytes = p4::rdma::P4_RDMA_CONVERT_CHUNK_BYTES;  // a conversion's streaming chunk
};

// The function the NIC is (its config space), built before the endpoint base that serves it.
struct IonicFunction {
  IonicFunction(const std::string& path, pcie::SimContext& ctx);
  pcie::Function fn;
  uint16_t msix_cap = 0;
};

class IonicNic : private IonicFunction, public pcie::EndpointBase, public net::NetEnd {
 public:
  IonicNic(sc_core::sc_module_name name, pcie::SimContext& ctx, const NicOptions& options,
           std::unique_ptr<p4::Engine> program);
  ~IonicNic() override;

  // The network port.
  void frame_arrived(net::Frame frame) override;
  uint64_t line_rate_mbps() const override { return IONIC_LINK_SPEED_MBPS; }
  std::string end_name() const override { return name(); }

  uint64_t frames_in_flight() const;
  void trace_signals(sc_core::sc_trace_file* vcd);
  // The end of the run: the P4 stats line.
  void shutdown();

  P4Attachment* p4() { return p4_.get(); }
  RdmaEngine& rdma() { return *rdma_; }
  const FilterSlot& tx_filter() const { return tx_slot_; }

  struct Counters {
    uint64_t devcmds = 0, adminq_cmds = 0, tx_frames = 0, tx_errors = 0, rx_frames = 0, rx_dropped = 0;
    uint64_t to_wire = 0, inband_frames = 0;
  };
  Counters counters() const;

 private:
  // BAR0 and BAR2 (ionic_nic.cpp)
  void read_dev_info(uint64_t off, uint8_t* out, size_t n) const;
  void read_dev_cmd(uint64_t off, uint8_t* out, size_t n) const;
  void write_dev_cmd(uint64_t off, const uint8_t* in, size_t n);
  void write_doorbell(uint64_t off, const uint8_t* in, size_t n);
  void run_devcmd();
  // Command execution, shared by both paths (commands.cpp). `data` is the devcmd data area
  // (null on the admin queue).
  void execute(const uint8_t* cmd, CmdPath path, uint8_t* data, std::function<void(Comp)> done);
  // The admin queue (adminq.cpp).
  void service_adminq();
  void adminq_next();
  // The frame path: a frame the guest sent, one for the wire.
  void from_guest(NicFrame frame);
  bool to_uplink(NicFrame& frame);

  NicOptions options_;
  std::array<uint8_t, DEV_INFO_BYTES> dev_info_{};
  std::array<uint8_t, DEV_CMD_REGS_BYTES> dev_cmd_{};
  bool devcmd_busy_ = false;
  bool lif_initialized_ = false;
  std::array<uint8_t, 6> mac_{};
  IntrCtrl intr_;
  EndpointIo io_;  // the NIC's DMA and time, for the parts that take a DeviceIo
  EthQueues eth_;  // the Ethernet queues (eth_queues.h)
  // The frame path.
  FilterSlot tx_slot_, rx_slot_;
  std::unique_ptr<InbandEndpoint> inband_;
  std::unique_ptr<P4Attachment> p4_;
  std::unique_ptr<P4Surface> surface_;
  std::unique_ptr<RdmaEngine> rdma_;
  Counters counters_;
  // VCD
  uint32_t trace_adminq_pending_ = 0, trace_p4_dropped_ = 0;
};

}  // namespace dpusim::ionic
