// A PCI function as the transaction layer sees it: its configuration space, the routing ID it
// captured, the decode of its memory BARs, and the config-request service every function
// shares (PCIe r5.0 §2.2.6.2, §7.5.1).
//
// A function captures its Bus and Device Number from every Type 0 configuration write it
// completes and uses them as its Requester/Completer ID. Register writes that change a value
// are logged ("reg_write") with the register and its value before and after.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "tlm/config_space.h"
#include "tlm/sim_context.h"

namespace dpusim::pcie {

class Requester;

struct BarHit {
  unsigned bar;
  uint64_t offset;
};

class Function {
 public:
  Function(std::string path, SimContext& ctx, uint16_t config_size = 4096);
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;

  const std::string& path() const { return path_; }
  ConfigSpace cfg;

  uint16_t id() const { return id_; }            // captured routing ID (bus/dev/fn)
  void set_function_number(uint8_t fn) { id_ = uint16_t((id_ & ~7u) | (fn & 7)); }
  // Firmware restoring an ID captured elsewhere (a device model handing a function's state
  // over, as the DOCA app's live update does with its emulated functions).
  void restore_id(uint16_t id) { id_ = id; }

  // Service of a Type 0 config request addressed to this function.
  uint32_t config_read(uint16_t offset) const { return cfg.read_dword(offset); }
  // The DW masked with the request's First DW BE (a config completion carries only those bytes).
  uint32_t config_read(uint16_t offset, uint8_t first_be) const;
  void config_write(uint16_t offset, uint32_t value, uint8_t byte_enable, uint16_t target_id);

  // Function Level Reset (PCIe r5.0 §6.6.2): on a function whose Device Capabilities advertise
  // Function Level Reset Capability, a config write setting Initiate Function Level Reset
  // (Device Control bit 15, which reads 0) calls this after the write has applied and been
  // logged. What the reset does (configuration space, MSI-X, the device's own state) is the
  // device's; the bit itself is decoded here once for every device.
  std::function<void()> on_flr;

  bool memory_enabled() const;
  bool bus_master() const;
  // Where a memory request lands, if it hits an enabled memory BAR (Command.MSE set).
  std::optional<BarHit> decode(uint64_t address) const;
  uint64_t bar_address(unsigned bar) const;
  uint64_t bar_size(unsigned bar) const;

  // Offset of the PCI Express capability (0 if none) and its registers.
  uint16_t pcie_cap() const { return pcie_cap_; }
  void set_pcie_cap(uint16_t off) { pcie_cap_ = off; }
  unsigned max_payload_size() const;
  unsigned max_read_request_size() const;
  bool extended_tags() const;
  unsigned read_completion_boundary() const;

 private:
  std::string path_;
  SimContext& ctx_;
  uint16_t id_ = 0;
  uint16_t pcie_cap_ = 0;
};

// A function's requester follows its Device Control as the function's registers say:
// Max_Payload_Size, Max_Read_Request_Size and the Extended Tag Field Enable (32 or 256 tags).
void follow_device_control(Requester& requester, const Function& fn);

}  // namespace dpusim::pcie
