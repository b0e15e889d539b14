// The ionic NIC's high-volume events and their categories (tlm/log_filter.h): what a run at
// `--log summary` leaves out of the event log, per frame on the Ethernet datapath and per work
// request on the RDMA datapath. Its other events (device commands, queue setup, refusals,
// interrupts, the P4 control surface) stay in the default `state` category.
#pragma once

#include "tlm/log_filter.h"

namespace dpusim::ionic::events {

extern const pcie::EventCategory frame_category;  // "ionic_frame"
extern const pcie::EventKind tx_frame, rx_frame, inband_frame, p4_verdict;

extern const pcie::EventCategory rdma_category;  // "rdma"
extern const pcie::EventKind rdma_wqe, rdma_wc, rdma_recv, rdma_p4;

}  // namespace dpusim::ionic::events
