// The ionic NIC (models/ionic): its own latencies, each a parameter of the timing profile with
// its default and source in docs/timing.md.
#pragma once

#include "tlm/timing.h"

namespace dpusim::ionic::timing {

extern const pcie::TimingParam service_ps;       // a BAR access, arrival to service
extern const pcie::TimingParam devcmd_ps;        // firmware's handling of a device command
extern const pcie::TimingParam adminq_cmd_ps;    // ... of one admin-queue command
extern const pcie::TimingParam tx_desc_ps;       // starting one transmit descriptor
extern const pcie::TimingParam rx_frame_ps;      // starting the delivery of one received frame
extern const pcie::TimingParam p4_frame_ps;      // one frame through the P4 pipeline
extern const pcie::TimingParam p4_load_ps;       // replacing the running program (a commit)
extern const pcie::TimingParam rdma_wqe_ps;      // starting one RDMA work request

}  // namespace dpusim::ionic::timing
