#include "ionic/ionic_timing.h"

namespace dpusim::ionic::timing {

const pcie::TimingParam service_ps({"ionic.service_ps", 50000, 0, 1000000000, "ps"},
                                   pcie::ExploreRange::per_run(50, 200));
const pcie::TimingParam devcmd_ps({"ionic.devcmd_ps", 0, 0, 1000000000000ull, "ps"},
                                  pcie::ExploreRange::per_run(50, 200));
const pcie::TimingParam adminq_cmd_ps({"ionic.adminq_cmd_ps", 1000000, 0, 1000000000000ull, "ps"},
                                      pcie::ExploreRange::per_run(50, 200));
const pcie::TimingParam tx_desc_ps({"ionic.tx_desc_ps", 100000, 0, 1000000000, "ps"},
                                   pcie::ExploreRange::per_run(50, 200));
const pcie::TimingParam rx_frame_ps({"ionic.rx_frame_ps", 100000, 0, 1000000000, "ps"},
                                    pcie::ExploreRange::per_run(50, 200));
const pcie::TimingParam p4_frame_ps({"ionic.p4.frame_ps", 500000, 0, 1000000000, "ps"},
                                    pcie::ExploreRange::per_run(50, 200));
const pcie::TimingParam p4_load_ps({"ionic.p4.load_ps", 1000000000, 0, 1000000000000ull, "ps"});
const pcie::TimingParam rdma_wqe_ps({"ionic.rdma.wqe_ps", 100000, 0, 1000000000, "ps"},
                                    pcie::ExploreRange::per_run(50, 200));

}  // namespace dpusim::ionic::timing
