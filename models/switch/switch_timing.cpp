#include "switch/switch_timing.h"

namespace dpusim::sw::timing {

using pcie::ExploreRange;

const pcie::TimingParam switch_traversal_ps({"switch.traversal_ps", 100000, 0, 1000000000, "ps"},
                                            ExploreRange::per_run(100, 150));
const pcie::TimingParam slot_link_train_ps({"slot.link_train_ps", 10000000000ull, 0, 100000000000000ull, "ps"},
                                           ExploreRange::per_use(10, 1000));

}  // namespace dpusim::sw::timing
