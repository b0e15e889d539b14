#include "guest/guest_datapath.h"

#include <algorithm>
#include <stdexcept>

#include "net/frame.h"

namespace dpusim::guest {

using namespace sc_core;

GuestDatapath::GuestDatapath(pcie::SimContext& ctx, host::RootComplex& host, pcie::TimedQueue& timer, uint64_t id,
                             std::string name, uint16_t requester_id, unsigned queue_pairs, size_t max_frame)
    : ctx_(ctx),
      host_(host),
      timer_(timer),
      requester_id_(requester_id),
      max_frame_(max_frame),
      id_(id),
      name_(std::move(name)),
      flows_(queue_pairs) {}

void GuestDatapath::check_qp(unsigned qp) const {
  if (qp >= flows_.size())
    throw std::invalid_argument("queue pair " + std::to_string(qp) + " outside 0.." + std::to_string(flows_.size() - 1));
}

void GuestDatapath::pump_all() {
  if (!attached_) return;
  for (unsigned qp = 0; qp < flows_.size(); ++qp) pump(qp);
}

bool GuestDatapath::traffic_window_full(unsigned qp) const {
  // At most a ring's worth of a flow's frames between its transmit and its receive, so that a
  // loopback cannot overrun the device's receive side.
  const uint64_t back = qp < flow_received_.size() ? flow_received_[qp] : 0;
  return flows_[qp].sent - back >= tx_window(qp);
}

bool GuestDatapath::has_frame(unsigned qp) const {
  const Flow& f = flows_[qp];
  return !f.backlog.empty() || (traffic_ && f.sent < f.quota && f.allowance > 0 && !traffic_window_full(qp));
}

size_t GuestDatapath::take_frame(unsigned qp, uint8_t* out) {
  Flow& f = flows_[qp];
  size_t len;
  if (!f.backlog.empty()) {
    len = f.backlog.front().size();
    std::copy(f.backlog.front().begin(), f.backlog.front().end(), out);
    f.backlog.pop_front();
  } else {
    len = source_->next(uint16_t(qp), ctx_.now_ps(), out);
    if (f.sent == 0 && result_.start_ps == 0) result_.start_ps = ctx_.now_ps();
    ++f.sent;
    --f.allowance;
    ++result_.sent;
    result_.bytes_sent += len;
  }
  ++tx_frames_;
  return len;
}

void GuestDatapath::detach() {
  if (!attached_) return;
  attached_ = false;
  ctx_.event(name_, "guest_detach").u64("tx_frames", tx_frames_).u64("rx_frames", rx_frames_);
}

void GuestDatapath::deliver(unsigned qp, const uint8_t* frame, size_t len) {
  ++rx_frames_;
  if (traffic_ && checker_) {
    checker_->check(qp, frame, len, ctx_.now_ps());
    if (len >= net::kTrafficHeaderBytes) {
      const uint16_t flow = uint16_t(frame[22] | frame[23] << 8);
      if (flow >= flow_received_.size()) flow_received_.resize(size_t(flow) + 1, 0);
      ++flow_received_[flow];
    }
    result_.received = checker_->received();
    if (result_.received >= traffic_->frames && !result_.done) {
      result_.done = true;
      result_.running = false;
      result_.end_ps = ctx_.now_ps();
      ctx_.event(name_, "traffic_done")
          .u64("frames", traffic_->frames)
          .u64("good", checker_->counts().good)
          .u64("bad", result_.received - checker_->counts().good)
          .u64("start_ps", result_.start_ps);
      post(kTrafficDone);
    }
    return;
  }
  received_.emplace_back(qp, std::vector<uint8_t>(frame, frame + len));
  if (ready_target_ && received_.size() >= ready_target_) {
    ready_target_ = 0;
    post(kFramesReady);
  }
}

void GuestDatapath::post(int what, uint64_t value) {
  pcie::Notification n(kGuestNotification);
  n.token = id_;
  n.status = what;
  n.address = value;
  ctx_.post(std::move(n));
}

void GuestDatapath::send(unsigned qp, std::vector<std::vector<uint8_t>> frames) {
  check_qp(qp);
  for (const auto& f : frames)
    if (f.size() < net::kEthHeaderBytes || f.size() > max_frame_)
      throw std::invalid_argument("a frame of " + std::to_string(f.size()) + " bytes is outside " +
                                  std::to_string(net::kEthHeaderBytes) + ".." + std::to_string(max_frame_));
  for (auto& f : frames) flows_[qp].backlog.push_back(std::move(f));
  pump(qp);
}

void GuestDatapath::notify_when_received(uint64_t count) {
  if (received_.size() >= count) {
    post(kFramesReady);
    return;
  }
  ready_target_ = count;
}

std::vector<std::pair<unsigned, std::vector<uint8_t>>> GuestDatapath::take(size_t max) {
  std::vector<std::pair<unsigned, std::vector<uint8_t>>> out;
  while (!received_.empty() && out.size() < max) {
    out.push_back(std::move(received_.front()));
    received_.pop_front();
  }
  return out;
}

void GuestDatapath::start_traffic(const TrafficSpec& spec) {
  if (traffic_ && !result_.done) throw std::logic_error(name_ + ": a traffic run is already going");
  if (spec.frames == 0) throw std::invalid_argument("a traffic run of 0 frames");
  if (spec.batch == 0) throw std::invalid_argument("a batch of 0 frames");
  if (spec.qps.empty()) throw std::invalid_argument("no queue pair to send on");
  for (unsigned qp : spec.qps) check_qp(qp);
  spec.sizes.check(net::kTrafficHeaderBytes, std::min<size_t>(max_frame_, 65535));
  const std::string stream = name_ + ".traffic" + std::to_string(runs_++);
  traffic_ = spec;
  // The payload key and the sizes come from the platform's stream for this run.
  pcie::Rng rng = ctx_.rng(stream);
  const uint64_t key = rng.next();
  source_ = std::make_unique<net::FrameSource>(key, rng, spec.sizes, spec.dst, spec.src);
  checker_ = std::make_unique<net::FrameChecker>(key);
  result_ = TrafficResult{};
  result_.running = true;
  result_.frames = spec.frames;
  flow_received_.assign(flows_.size(), 0);
  for (Flow& f : flows_) f.quota = f.sent = f.allowance = 0;
  for (size_t k = 0; k < spec.qps.size(); ++k)
    flows_[spec.qps[k]].quota += spec.frames / spec.qps.size() + (k < spec.frames % spec.qps.size() ? 1 : 0);
  ctx_.event(name_, "traffic_start")
      .u64("frames", spec.frames)
      .str("sizes", spec.sizes.describe())
      .u64("rate_fps", spec.rate_fps)
      .u64("batch", spec.batch)
      .u64("queue_pairs", spec.qps.size());
  for (unsigned qp : spec.qps) tick(qp);
}

void GuestDatapath::tick(unsigned qp) {
  Flow& f = flows_[qp];
  if (!attached_ || !traffic_ || result_.done || f.sent >= f.quota) {
    f.ticking = false;
    return;
  }
  if (traffic_->rate_fps == 0) {
    f.allowance = UINT64_MAX;
    pump(qp);
    return;
  }
  // A batch every batch/rate seconds.
  f.allowance += traffic_->batch;
  pump(qp);
  f.ticking = true;
  const uint64_t period = (uint64_t(traffic_->batch) * 1000000000000ull + traffic_->rate_fps - 1) / traffic_->rate_fps;
  timer_.at(sc_time::from_value(period), [this, qp] { tick(qp); });
}

TrafficResult GuestDatapath::traffic() const {
  TrafficResult r = result_;
  if (checker_) {
    r.checked = checker_->counts();
    r.first_problem = checker_->first_problem();
    r.missing = 0;
    for (unsigned qp = 0; qp < flows_.size(); ++qp) r.missing += checker_->missing(uint16_t(qp), flows_[qp].sent);
  }
  return r;
}

}  // namespace dpusim::guest
