#include "ionic/ionic_events.h"

namespace dpusim::ionic::events {

const pcie::EventCategory frame_category("ionic_frame", false,
                                         "the ionic NIC's per-frame events: tx_frame, rx_frame, inband_frame, p4_verdict");
const pcie::EventKind tx_frame("tx_frame", frame_category), rx_frame("rx_frame", frame_category),
    inband_frame("inband_frame", frame_category), p4_verdict("p4_verdict", frame_category);

const pcie::EventCategory rdma_category("rdma", false,
                                        "the ionic NIC's per-work-request RDMA events: rdma_wqe, rdma_wc, rdma_recv, rdma_p4");
const pcie::EventKind rdma_wqe("rdma_wqe", rdma_category), rdma_wc("rdma_wc", rdma_category),
    rdma_recv("rdma_recv", rdma_category), rdma_p4("rdma_p4", rdma_category);

}  // namespace dpusim::ionic::events
