#include "guest/guest_timing.h"

namespace dpusim::guest::timing {

const pcie::TimingParam tx_poll_ps({"guest.tx_poll_ps", 1000000, 1, 1000000000000ull, "ps"});

}  // namespace dpusim::guest::timing
