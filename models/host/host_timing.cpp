#include "host/host_timing.h"

namespace dpusim::host::timing {

using pcie::ExploreRange;

const pcie::TimingParam mem_read_ps({"host.mem_read_ps", 100000, 0, 1000000000, "ps"},
                                    ExploreRange::per_use(50, 200));
const pcie::TimingParam pciehp_button_ps({"host.pciehp.button_ps", 5000000000000ull, 0, 100000000000000ull, "ps"},
                                         ExploreRange::per_use(100, 100, pcie::kLinuxJiffyPs));
const pcie::TimingParam pciehp_cmd_timeout_ps({"host.pciehp.cmd_timeout_ps", 1000000000000ull, 1, 100000000000000ull, "ps"});
const pcie::TimingParam pciehp_link_detect_ps({"host.pciehp.link_detect_ps", 20000000000ull, 0, 100000000000000ull, "ps"},
                                              ExploreRange::per_use(100, 100, pcie::kLinuxMsleepSlackPs));
const pcie::TimingParam pciehp_link_poll_ps({"host.pciehp.link_poll_ps", 1000000000, 1, 100000000000000ull, "ps"},
                                            ExploreRange::per_use(100, 100, pcie::kLinuxMsleepSlackPs));
const pcie::TimingParam pciehp_link_timeout_ps({"host.pciehp.link_timeout_ps", 1000000000000ull, 1, 100000000000000ull, "ps"});
const pcie::TimingParam pciehp_link_settle_ps({"host.pciehp.link_settle_ps", 100000000000ull, 0, 100000000000000ull, "ps"},
                                              ExploreRange::per_use(100, 100, pcie::kLinuxMsleepSlackPs));
const pcie::TimingParam pciehp_dev_poll_ps({"host.pciehp.dev_poll_ps", 20000000000ull, 1, 100000000000000ull, "ps"},
                                           ExploreRange::per_use(100, 100, pcie::kLinuxMsleepSlackPs));
const pcie::TimingParam pciehp_dev_timeout_ps({"host.pciehp.dev_timeout_ps", 1000000000000ull, 1, 100000000000000ull, "ps"});
const pcie::TimingParam pciehp_power_off_settle_ps({"host.pciehp.power_off_settle_ps", 1000000000000ull, 0, 100000000000000ull, "ps"},
                                                   ExploreRange::per_use(100, 100, pcie::kLinuxMsleepSlackPs));
const pcie::TimingParam virtio_reset_poll_ps({"host.virtio.reset_poll_ps", 1000000000, 1, 100000000000000ull, "ps"},
                                             ExploreRange::per_use(100, 100, pcie::kLinuxMsleepSlackPs));

}  // namespace dpusim::host::timing
