// The test endpoint (models/testep): service time of each request, DMA engine setup.
#pragma once

#include "tlm/timing.h"

namespace dpusim::testep::timing {

extern const pcie::TimingParam service_ps;
extern const pcie::TimingParam dma_setup_ps;
// The pcie-bench engine (bench_engine.h): issue time per request, fixed plus per 64 bytes.
extern const pcie::TimingParam bench_rd_issue_ps, bench_rd_issue_line_ps, bench_wr_issue_ps, bench_wr_issue_line_ps;

}  // namespace dpusim::testep::timing
