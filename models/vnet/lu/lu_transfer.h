// The device state a live update moves from the active to the standby (vnet_pci_dev_lu.c; the
// DOCA guide §7.9), apart from its phases and their timing (lu_active.cpp, lu_standby.cpp):
// what the active captures of each device it drives, and what the standby sets from it before
// its engines are prepared. The export's byte format is lu_export.h's.
#pragma once

#include <vector>

#include "vnet/app/app_state.h"
#include "vnet/lu/lu_export.h"

namespace dpusim::vnet {

// The export of endpoints `eps` (in order): each device's identity, negotiated features, queue
// pairs and VQ shadows, and its offload engine's blob. `state` is the LU state it records.
LuExport lu_capture(const VnetOptions& opt, const AppDevices& devs, const std::vector<unsigned>& eps, uint32_t state);

// Endpoint `ep` as record `r` leaves it: the status the driver wrote (ACK|DRIVER|FEATURES_OK|
// DRIVER_OK), the negotiated features, every queue's shadow, the controller's MQ state. The
// shadows, by queue.
std::vector<VqShadow> lu_restore(const LuDeviceRecord& r, AppDevices& devs, unsigned ep);

}  // namespace dpusim::vnet
