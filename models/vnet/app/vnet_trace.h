// How the vnet_pci_dev application's events appear in the run's trace (tlm/trace_rules.h):
// one track per application thread (PE1 "vnet/main", the config worker "vnet/worker" and
// its queue "vnet/workqueue", each MQ-start thread "vnet/mq<n>"), one per virtqueue
// ("ep<i>/vq<q>", its lifecycle states as slices) and per endpoint ("ep<i>/engine",
// "ep<i>/device").
#pragma once

#include "tlm/trace_rules.h"

namespace dpusim::vnet {

void add_trace_rules(pcie::TraceRules& rules);

}  // namespace dpusim::vnet
