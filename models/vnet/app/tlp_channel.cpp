#include "vnet/app/tlp_channel.h"

#include "vnet/app/pe1.h"

namespace dpusim::vnet {

void TlpChannel::deliver(pcie::Tlp& t, uint64_t now_ps) {
  if (primary_) return primary_->enqueue(t);
  held_.push_back(Held{&t, now_ps});
}

void TlpChannel::set_primary(Pe1* pe1) {
  primary_ = pe1;
  if (!primary_) return;
  while (!held_.empty()) {
    const Held h = held_.front();
    held_.pop_front();
    primary_->enqueue(*h.tlp, h.arrival_ps, true);
  }
}

}  // namespace dpusim::vnet
