// The generic switch (models/switch): store-and-forward traversal of each TLP, and the
// time a powered slot's link takes to train (PCIe r5.0 §6.7.3.3 leaves it to the design).
#pragma once

#include "tlm/timing.h"

namespace dpusim::sw::timing {

extern const pcie::TimingParam switch_traversal_ps;
extern const pcie::TimingParam slot_link_train_ps;

}  // namespace dpusim::sw::timing
