// The test endpoint (models/testep): service time of each request, DMA engine setup.
#pragma once

#include "tlm/timing.h"

namespace dpusim::testep::timing {

extern const pcie::TimingParam service_ps;
extern const pcie::TimingParam dma_setup_ps;
// The pcie-bench engine (bench_engine.h): issue time per request, fixed plus per 64 bytes; the
// time to move each 64-byte line of a read's data on after the first, from its first completion.
extern const pcie::TimingParam bench_rd_issue_ps, bench_rd_issue_line_ps, bench_wr_issue_ps, bench_wr_issue_line_ps;
extern const pcie::TimingParam bench_rd_drain_line_ps;

}  // namespace dpusim::testep::timing
