#include "switch/switch_timing.h"

namespace dpusim::sw::timing {

const pcie::TimingParam switch_traversal_ps({"switch.traversal_ps", 100000, 0, 1000000000, "ps"});
const pcie::TimingParam slot_link_train_ps({"slot.link_train_ps", 10000000000ull, 0, 100000000000000ull, "ps"});

}  // namespace dpusim::sw::timing
