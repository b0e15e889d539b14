#include "testep/testep_timing.h"

namespace dpusim::testep::timing {

using pcie::ExploreRange;

const pcie::TimingParam service_ps({"test_endpoint.service_ps", 50000, 0, 1000000000, "ps"},
                                   ExploreRange::per_run(50, 200));
const pcie::TimingParam dma_setup_ps({"test_endpoint.dma_setup_ps", 100000, 0, 1000000000, "ps"},
                                     ExploreRange::per_run(50, 200));
const pcie::TimingParam bench_rd_issue_ps({"test_endpoint.bench.rd_issue_ps", 0, 0, 1000000000, "ps"});
const pcie::TimingParam bench_rd_issue_line_ps({"test_endpoint.bench.rd_issue_line_ps", 0, 0, 1000000000, "ps"});
const pcie::TimingParam bench_wr_issue_ps({"test_endpoint.bench.wr_issue_ps", 0, 0, 1000000000, "ps"});
const pcie::TimingParam bench_wr_issue_line_ps({"test_endpoint.bench.wr_issue_line_ps", 0, 0, 1000000000, "ps"});

}  // namespace dpusim::testep::timing
