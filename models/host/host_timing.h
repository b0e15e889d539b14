// The host (models/host): its memory's read latency, and the delays the host's Linux drivers
// wait (the pciehp driver, pybind/dpusim/drivers/pciehp*.py, reads host.pciehp.* with sim.cost()
// and sleeps them with sim.latency(); drivers/pci/hotplug/pciehp_*.c and drivers/pci/pci.c give
// the values; the virtio driver's reset poll is drivers/virtio/virtio_pci_modern.c's).
#pragma once

#include "tlm/timing.h"

namespace dpusim::host::timing {

extern const pcie::TimingParam mem_read_ps;
extern const pcie::TimingParam pciehp_button_ps;
extern const pcie::TimingParam pciehp_cmd_timeout_ps;
extern const pcie::TimingParam pciehp_link_detect_ps;
extern const pcie::TimingParam pciehp_link_poll_ps;
extern const pcie::TimingParam pciehp_link_timeout_ps;
extern const pcie::TimingParam pciehp_link_settle_ps;
extern const pcie::TimingParam pciehp_dev_poll_ps;
extern const pcie::TimingParam pciehp_dev_timeout_ps;
extern const pcie::TimingParam pciehp_power_off_settle_ps;
extern const pcie::TimingParam virtio_reset_poll_ps;

}  // namespace dpusim::host::timing
