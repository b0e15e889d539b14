// PE1, the application's main thread as the TLP channel's server (DOCA vnet_pci_dev: the
// progress engine that receives every host TLP the switch does not hand to firmware): one
// FIFO, each TLP served after its handler's cost (vnet.pe1.*), in arrival order; the time
// from arrival to completion, queueing included, is checked against vnet.pe1.bound_ps.
//
// Its handlers: config requests to the switch's functions and the endpoints, routed by the
// application's BDF cache (find_device_by_bdf: the cache, then the slow path by bus number);
// memory requests to the endpoints' application-emulated BAR0 regions (common config, device
// config); everything else to the dummy function, which answers Unsupported Request (byte
// count 4 whatever was asked; a posted request's completion stays inside the application).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tlm/tlp_payload.h"
#include "vnet/app/app_state.h"

namespace dpusim::vnet {

class StatusMachine;
struct VfSlot;

class Pe1 {
 public:
  // `send_up` puts a TLP on the DPU's link to the host.
  Pe1(AppEnv& env, AppPorts& ports, AppDevices& devs, StatusMachine& status, std::function<void(pcie::Tlp*)> send_up);

  void enqueue(pcie::Tlp& t) { enqueue(t, env_.ctx.now_ps(), false); }
  // A TLP that arrived at `arrival_ps` and waited in the TLP channel through a live update's
  // handover (`handover`): served like any other; its wait is logged ("lu_tlp_wait") instead of
  // being checked against vnet.pe1.bound_ps.
  void enqueue(pcie::Tlp& t, uint64_t arrival_ps, bool handover);
  // A live update took the main thread out of its progress loop (vnet_pci_dev_lu.c): TLPs wait
  // in the queue until the hold ends; those already taken are served first.
  void hold_for_handover(bool hold);
  bool idle() const { return fifo_.empty(); }
  // The bus-number DW of a bridge changed (`dsp` -1: the USP): logged, the cache updated.
  void on_bus_config(int dsp, uint32_t before, uint32_t after);
  // An Unsupported Request from the dummy function (a completion only for non-posted ones).
  void dummy_ur(const tlp::Header& h, uint16_t completer);
  const std::string& dummy_path() const { return dummy_path_; }
  // Called after each TLP's handler (the slot traces follow the DSPs' registers).
  std::function<void()> after_service;

  uint32_t trace_queue = 0;

 private:
  struct Entry {
    pcie::Tlp* tlp;
    uint64_t arrival_ps, cost_ps;
    const pcie::TimingParam* cost_id;
    bool handover;  // waited out a live update's handover
  };
  void schedule(const Entry& e);
  enum class Kind { USP, DSP, EP, DUMMY };
  struct Target {
    Kind kind;
    unsigned index;
  };
  void serve();
  Target find_device_by_bdf(bool type1, uint16_t bdf);
  void record_bdf(Target t, uint16_t bdf);
  VfSlot* find_vf(uint16_t bdf);
  void service_config(pcie::Tlp& t);
  void service_memory(pcie::Tlp& t);
  void ep_mmio_read(unsigned i, const tlp::Header& h);
  void ep_mmio_write(unsigned i, const tlp::Header& h, const uint8_t* data);

  AppEnv& env_;
  AppPorts& ports_;
  AppDevices& devs_;
  StatusMachine& status_;
  std::function<void(pcie::Tlp*)> send_up_;
  std::deque<Entry> fifo_;
  bool hold_ = false;
  size_t held_ = 0;  // entries at the back of the FIFO not scheduled yet (the hold)
  std::string dummy_path_;
  // The BDF cache: key (type1 << 16 | bdf) -> target, one key per device.
  std::map<uint32_t, Target> bdf_cache_;
  std::vector<uint16_t> recorded_bdf_;  // per target: USP, DSPs, EPs, dummy
  std::vector<int> ep_pf_bus_;          // VirtIO-side enumeration: the bus each EP was bound at, -1 none
};

}  // namespace dpusim::vnet
