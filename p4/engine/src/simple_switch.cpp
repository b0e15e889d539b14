// simple_switch's packet flow (targets/simple_switch/simple_switch.cpp) over one input
// frame, run to completion, and the two port policies.
//
// simple_switch runs ingress and egress on threads with queues between them; here the
// queues are processed in order, so a frame's packets leave in a deterministic order:
// resubmitted and recirculated packets (simple_switch's high-priority input queue) before
// queued egress work, and egress work first in, first out. The single queue per port that
// simple_switch has by default is modelled as that egress queue: enq_qdepth counts the
// packets queued for the port ahead of a packet, deq_qdepth those behind it; the clock does
// not move while a frame is processed, so deq_timedelta is 0.
//
// What happens at the end of ingress, in simple_switch's order: an ingress clone (the
// original frame parsed again, metadata reset but for its field list, sent to the mirroring
// session's port and/or multicast group), a digest, then resubmit (the original frame back
// to ingress, the rest abandoned), multicast (copies per group node and port, the original
// abandoned), or the egress port. At the end of egress: an egress clone (the headers as they
// are, metadata reset but for its field list), the drop check, the deparser (checksums
// first), then recirculation (the deparsed frame back to ingress) or transmission.
#include <algorithm>
#include <cstring>

#include "dpusim/p4/limits.h"
#include "engine_impl.h"

namespace dpusim::p4 {

namespace {

// v1model's instance types (simple_switch.h PktInstanceType).
constexpr std::uint32_t kNormal = 0, kIngressClone = 1, kEgressClone = 2, kRecirc = 4, kReplication = 5,
                        kResubmit = 6;
constexpr std::uint32_t kMirrorSessionMask = 0x7fff;

}  // namespace

int EngineState::new_job() {
  if (!free_jobs.empty()) {
    int j = free_jobs.back();
    free_jobs.pop_back();
    return j;
  }
  pool.emplace_back();
  return static_cast<int>(pool.size()) - 1;
}

void EngineState::release(int job) { free_jobs.push_back(job); }

int EngineState::save() {
  const FrameState& st = exec->st;
  int j = new_job();
  PacketJob& p = pool[static_cast<std::size_t>(j)];
  p.phv = st.phv;
  p.valid = st.valid;
  p.stack_next = st.stack_next;
  p.union_stack_next = st.union_stack_next;
  p.vl_bits = st.vl_bits;
  p.bytes.clear();
  p.owns_bytes = false;
  p.pkt = st.pkt;
  p.pkt_len = st.pkt_len;
  p.cursor = st.cursor;
  p.in_port = st.in_port;
  p.egress_spec_written = st.egress_spec_written;
  p.truncate_len = st.truncate_len;
  p.length_reg = st.length_reg;
  p.ingress_length = st.ingress_length;
  p.recirculate_list = st.recirculate_list;
  p.learn_list = st.learn_list;
  p.resubmit_list = st.resubmit_list;
  p.checksum_error = st.checksum_error;
  return j;
}

void EngineState::restore(int job) {
  FrameState& st = exec->st;
  const PacketJob& p = pool[static_cast<std::size_t>(job)];
  std::copy(p.phv.begin(), p.phv.end(), st.phv.begin());
  std::copy(p.valid.begin(), p.valid.end(), st.valid.begin());
  std::copy(p.stack_next.begin(), p.stack_next.end(), st.stack_next.begin());
  std::copy(p.union_stack_next.begin(), p.union_stack_next.end(), st.union_stack_next.begin());
  std::copy(p.vl_bits.begin(), p.vl_bits.end(), st.vl_bits.begin());
  st.pkt = p.owns_bytes ? p.bytes.data() : p.pkt;
  st.pkt_len = p.owns_bytes ? p.bytes.size() : p.pkt_len;
  st.cursor = p.owns_bytes ? 0 : p.cursor;
  st.in_port = p.in_port;
  st.egress_spec_written = p.egress_spec_written;
  st.truncate_len = p.truncate_len;
  st.length_reg = p.length_reg;
  st.ingress_length = p.ingress_length;
  st.recirculate_list = p.recirculate_list;
  st.learn_list = p.learn_list;
  st.resubmit_list = p.resubmit_list;
  st.checksum_error = p.checksum_error;
  st.clone_session = st.clone_field_list = 0;
  st.exit = st.stop = false;
  st.fault = nullptr;
  exec->forget_wire();
}

int EngineState::snapshot_for_egress(std::uint32_t port) {
  int j = save();
  PacketJob& p = pool[static_cast<std::size_t>(j)];
  // A queued packet owns what is left of its frame after the parsed headers.
  p.bytes.assign(p.pkt + p.cursor, p.pkt + p.pkt_len);
  p.owns_bytes = true;
  p.learn_list = p.resubmit_list = 0;
  p.egress = true;
  p.port = port;
  return j;
}

void EngineState::reset_metadata(PacketJob& job) const {
  for (const HeaderInfo& h : program.headers)
    if (h.metadata) std::fill(job.phv.begin() + h.limb, job.phv.begin() + h.limb + h.nlimbs, 0);
}

void EngineState::set_field(PacketJob& job, int field, std::uint64_t value) const {
  if (field < 0) return;
  const FieldInfo& f = program.fields[static_cast<std::size_t>(field)];
  std::fill(job.phv.begin() + f.limb, job.phv.begin() + f.limb + f.nlimbs, 0);
  job.phv[static_cast<std::size_t>(f.limb)] = f.width < 64 ? value & ((1ull << f.width) - 1) : value;
}

void EngineState::copy_field_list(PacketJob& to, const std::vector<std::uint64_t>& from, std::uint32_t list_id) const {
  for (const FieldListInfo& fl : program.field_lists) {
    if (static_cast<std::uint32_t>(fl.id) != list_id) continue;
    for (int f : fl.fields) {
      const FieldInfo& fi = program.fields[static_cast<std::size_t>(f)];
      std::copy(from.begin() + fi.limb, from.begin() + fi.limb + fi.nlimbs, to.phv.begin() + fi.limb);
    }
  }
}

bool EngineState::port_exists(std::uint32_t port) const {
  return options.policy == PortPolicy::kDevice ? port <= P4_PORT_UPLINK : port < P4_V1MODEL_DROP_PORT;
}

void EngineState::drop(DropReason reason) {
  ++stats.dropped;
  if (reason == DropReason::kTooBig) ++stats.too_big;
  if (reason == DropReason::kFault) ++stats.faults;
  if (result.first_drop == DropReason::kNone) {
    result.first_drop = reason;
    if (reason == DropReason::kFault) result.fault = exec->st.fault;
  }
  ++result.drops;
}

void EngineState::emit(std::uint32_t port, std::size_t size) {
  if (size > P4_MAX_FRAME_BYTES) return drop(DropReason::kTooBig);
  // A packet deparsed to nothing: simple_switch sends it, an empty record in its capture; a
  // device has no frame to put on its wire or in a ring.
  if (size < P4_MIN_FRAME_BYTES && options.policy == PortPolicy::kDevice) return drop(DropReason::kTooSmall);
  (port == P4_PORT_HOST ? stats.host_out : stats.uplink_out)++;
  OutputPacket o;
  o.port = port;
  o.size = size;
  o.instance_type = program.f_instance_type >= 0 ? static_cast<std::uint32_t>(exec->field_u64(program.f_instance_type)) : 0;
  // Offsets for now: the arena may grow; run() turns them into pointers at the end.
  o.data = reinterpret_cast<const std::uint8_t*>(arena.len);
  arena.len += size;
  result.outputs.push_back(o);
}

// --- enqueueing, copies ------------------------------------------------------------------

void EngineState::enqueue(int job, std::uint32_t port) {
  Executor& x = *exec;
  const Program& p = program;
  if (!port_exists(port)) {
    if (job >= 0) release(job);
    return drop(DropReason::kNoSuchPort);
  }
  // simple_switch has one queue per port: a priority past it is dropped at enqueue.
  std::uint64_t priority = 0;
  if (p.f_priority >= 0)
    priority = job >= 0 ? pool[static_cast<std::size_t>(job)].phv[static_cast<std::size_t>(p.fields[static_cast<std::size_t>(p.f_priority)].limb)]
                        : x.field_u64(p.f_priority);
  if (priority != 0) {
    if (job >= 0) release(job);
    return drop(DropReason::kEgressDrop);
  }
  std::uint64_t depth = 0;
  for (int q : egress_queue) depth += pool[static_cast<std::size_t>(q)].port == port ? 1 : 0;
  if (job < 0) {
    if (p.queueing_metadata) {
      x.store_u64(p.f_enq_timestamp, x.st.now_us);
      x.store_u64(p.f_enq_qdepth, depth);
    }
    // Nothing queued ahead: the packet goes through egress now, without a copy.
    if (egress_queue.empty()) return egress(-1, port);
    job = snapshot_for_egress(port);
  } else {
    PacketJob& pj = pool[static_cast<std::size_t>(job)];
    pj.egress = true;
    pj.port = port;
    if (p.queueing_metadata) {
      set_field(pj, p.f_enq_timestamp, x.st.now_us);
      set_field(pj, p.f_enq_qdepth, depth);
    }
  }
  egress_queue.push_back(job);
}

int EngineState::multicast(int job, std::uint32_t mgid) {
  int copies = 0;
  auto g = runtime.mc_groups.find(mgid);
  if (g == runtime.mc_groups.end()) return 0;  // bmv2: "not known to the PRE", nothing sent
  for (std::uint32_t node : g->second) {
    const McNode& n = runtime.mc_nodes.at(node);
    for (std::uint32_t port : n.ports) {
      int copy;
      if (job >= 0) {
        copy = new_job();
        pool[static_cast<std::size_t>(copy)] = pool[static_cast<std::size_t>(job)];
      } else {
        if (program.f_egress_rid >= 0) exec->store_u64(program.f_egress_rid, n.rid);
        copy = snapshot_for_egress(port);
      }
      set_field(pool[static_cast<std::size_t>(copy)], program.f_egress_rid, n.rid);
      enqueue(copy, port);
      ++copies;
    }
  }
  return copies;
}

void EngineState::clone_to_session(int job, std::uint32_t session) {
  const MirrorSession& s = runtime.mirror_sessions.at(session);
  if (s.mgid_valid) multicast(job, s.mgid);
  if (s.port_valid) {
    int copy = new_job();
    pool[static_cast<std::size_t>(copy)] = pool[static_cast<std::size_t>(job)];
    enqueue(copy, s.port);
  }
  release(job);
}

// --- ingress ---------------------------------------------------------------------------

void EngineState::ingress(int job) {
  Executor& x = *exec;
  const Program& p = program;
  FrameState& st = x.st;
  if (job < 0) {
    x.begin_frame(input, input_len, st.in_port);
    // simple_switch's receive: ingress port, length, instance type and the timestamp.
    if (p.f_ingress_port >= 0) x.store_u64(p.f_ingress_port, st.in_port);
    if (p.f_packet_length >= 0) x.store_u64(p.f_packet_length, input_len);
    if (p.f_ingress_global_timestamp >= 0) x.store_u64(p.f_ingress_global_timestamp, st.now_us);
  } else {
    // A resubmitted or recirculated packet: its frame, and the metadata it was given.
    const PacketJob& pj = pool[static_cast<std::size_t>(job)];
    x.begin_frame(pj.bytes.data(), pj.bytes.size(), pj.in_port);
    for (const HeaderInfo& h : p.headers)
      if (h.metadata) std::copy(pj.phv.begin() + h.limb, pj.phv.begin() + h.limb + h.nlimbs, st.phv.begin() + h.limb);
    // (Metadata is never emitted: what the deparser copies is only headers.)
    st.length_reg = pj.length_reg;
    st.ingress_length = pj.ingress_length;
  }
  std::uint64_t error = x.parse();
  if (st.fault != nullptr) {
    if (job >= 0) release(job);
    return drop(DropReason::kFault);
  }
  if (error != p.core_errors.no_error) ++stats.parse_errors;
  if (p.f_parser_error >= 0) x.store_u64(p.f_parser_error, error);
  if (p.f_checksum_error >= 0) x.store_u64(p.f_checksum_error, st.checksum_error ? 1 : 0);
  st.egress_spec_written = false;
  x.run_pipeline(p.ingress);
  if (st.fault != nullptr) {
    if (job >= 0) release(job);
    return drop(DropReason::kFault);
  }
  st.exit = false;
  end_of_ingress(job);
}

void EngineState::end_of_ingress(int job) {
  Executor& x = *exec;
  const Program& p = program;
  FrameState& st = x.st;
  const bool device = options.policy == PortPolicy::kDevice;
  // The frame as it entered ingress, for an ingress clone and a resubmit.
  const std::uint8_t* frame = job < 0 ? input : pool[static_cast<std::size_t>(job)].bytes.data();
  const std::size_t frame_len = job < 0 ? input_len : pool[static_cast<std::size_t>(job)].bytes.size();
  const std::uint64_t ingress_size = job < 0 ? input_len : static_cast<std::uint64_t>(pool[static_cast<std::size_t>(job)].length_reg);
  const std::uint32_t in_port = st.in_port;

  if (st.clone_session != 0) {
    std::uint32_t session = st.clone_session & kMirrorSessionMask, list = st.clone_field_list;
    st.clone_session = st.clone_field_list = 0;
    if (runtime.mirror_sessions.count(session)) {
      int original = save();
      // The copy is the original frame parsed again with its ingress port, then given
      // fresh metadata but for the field list.
      x.begin_frame(frame, frame_len, in_port);
      if (p.f_ingress_port >= 0) x.store_u64(p.f_ingress_port, in_port);
      x.parse();
      int copy = -1;
      if (st.fault == nullptr) {
        copy = snapshot_for_egress(0);
        PacketJob& c = pool[static_cast<std::size_t>(copy)];
        reset_metadata(c);
        copy_field_list(c, pool[static_cast<std::size_t>(original)].phv, list);
        set_field(c, p.f_instance_type, kIngressClone);
        c.length_reg = static_cast<std::int64_t>(ingress_size);
        c.truncate_len = -1;
        c.recirculate_list = 0;
      }
      restore(original);
      release(original);
      if (copy >= 0) clone_to_session(copy, session);
      else drop(DropReason::kFault);
    }
  }

  if (st.learn_list != 0) {
    for (const FieldListInfo& fl : p.learn_lists) {
      if (static_cast<std::uint32_t>(fl.id) != st.learn_list) continue;
      DigestMessage d;
      d.list = fl.name;
      for (int f : fl.fields) {
        Value v;
        x.load_field(f, v);
        d.fields.emplace_back(p.fields[static_cast<std::size_t>(f)].name, v);
      }
      result.digests.push_back(std::move(d));
    }
    st.learn_list = 0;
  }

  // The packet in flight may read its frame (st.pkt) until it is queued or has left.
  struct Release {
    EngineState& m;
    int job;
    ~Release() {
      if (job >= 0) m.release(job);
    }
  } release_frame{*this, job};

  if (st.resubmit_list != 0) {
    int again = new_job();
    PacketJob& r = pool[static_cast<std::size_t>(again)];
    r.phv.assign(static_cast<std::size_t>(p.phv_limbs), 0);
    copy_field_list(r, st.phv, st.resubmit_list);
    set_field(r, p.f_instance_type, kResubmit);
    set_field(r, p.f_packet_length, ingress_size);
    r.bytes.assign(frame, frame + frame_len);
    r.owns_bytes = true;
    r.in_port = in_port;
    r.length_reg = static_cast<std::int64_t>(ingress_size);
    r.ingress_length = st.ingress_length;
    r.egress = false;
    ingress_queue.push_back(again);
    return;
  }

  std::uint64_t mgid = p.f_mcast_grp >= 0 ? x.field_u64(p.f_mcast_grp) : 0;
  if (mgid != 0) {
    // The original is abandoned for its copies.
    if (p.f_instance_type >= 0) x.store_u64(p.f_instance_type, kReplication);
    if (multicast(-1, static_cast<std::uint32_t>(mgid)) == 0) drop(DropReason::kIngressDrop);
    return;
  }

  const std::uint64_t spec = p.f_egress_spec >= 0 ? x.field_u64(p.f_egress_spec) : 0;
  std::uint32_t port;
  if (device && !st.egress_spec_written) {
    // No port chosen: the other port, as the device does with no program. The field's
    // initial zero is not a request for the host port.
    port = in_port == P4_PORT_HOST ? P4_PORT_UPLINK : P4_PORT_HOST;
  } else if (spec == P4_V1MODEL_DROP_PORT) {
    return drop(DropReason::kIngressDrop);
  } else {
    port = static_cast<std::uint32_t>(spec);
  }
  if (p.f_instance_type >= 0) x.store_u64(p.f_instance_type, kNormal);
  enqueue(-1, port);
}

// --- egress ----------------------------------------------------------------------------

void EngineState::egress(int job, std::uint32_t port) {
  Executor& x = *exec;
  const Program& p = program;
  FrameState& st = x.st;
  if (job >= 0) {
    restore(job);
    // The job's bytes stay in use (st.pkt) until this egress ends.
  }
  if (p.f_egress_global_timestamp >= 0) x.store_u64(p.f_egress_global_timestamp, st.now_us);
  if (p.queueing_metadata) {
    std::uint64_t behind = 0;
    for (int q : egress_queue) behind += pool[static_cast<std::size_t>(q)].port == port ? 1 : 0;
    x.store_u64(p.f_deq_timedelta, 0);
    x.store_u64(p.f_deq_qdepth, behind);
    if (p.f_qid >= 0) x.store_u64(p.f_qid, 0);
  }
  // egress_port is the resolved port; egress_spec becomes the drop port + 1 (512, which a
  // 9-bit field holds as 0) so that only an explicit drop drops.
  if (p.f_egress_port >= 0) x.store_u64(p.f_egress_port, port);
  if (p.f_egress_spec >= 0) x.store_u64(p.f_egress_spec, P4_V1MODEL_DROP_PORT + 1);
  if (p.f_packet_length >= 0) x.store_u64(p.f_packet_length, static_cast<std::uint64_t>(st.length_reg));
  x.run_pipeline(p.egress);
  auto finish = [&](DropReason reason) {
    if (reason != DropReason::kNone) drop(reason);
    if (job >= 0) release(job);
  };
  if (st.fault != nullptr) return finish(DropReason::kFault);

  if (st.clone_session != 0) {
    std::uint32_t session = st.clone_session & kMirrorSessionMask, list = st.clone_field_list;
    st.clone_session = st.clone_field_list = 0;
    if (runtime.mirror_sessions.count(session)) {
      // The copy keeps the headers as egress left them; its metadata is reset but for the
      // field list.
      int copy = snapshot_for_egress(0);
      PacketJob& c = pool[static_cast<std::size_t>(copy)];
      reset_metadata(c);
      copy_field_list(c, st.phv, list);
      set_field(c, p.f_instance_type, kEgressClone);
      c.truncate_len = -1;
      c.recirculate_list = 0;
      clone_to_session(copy, session);
    }
  }
  if (p.f_egress_spec >= 0 && x.field_u64(p.f_egress_spec) == P4_V1MODEL_DROP_PORT) return finish(DropReason::kEgressDrop);

  std::uint8_t* frame = arena.tail(Executor::kDeparseBytes);
  std::size_t size = x.deparse(frame);
  if (st.fault != nullptr) return finish(DropReason::kFault);
  if (st.recirculate_list != 0) {
    int again = new_job();
    PacketJob& r = pool[static_cast<std::size_t>(again)];
    r.phv.assign(p.phv_limbs, 0);
    copy_field_list(r, st.phv, st.recirculate_list);
    set_field(r, p.f_instance_type, kRecirc);
    set_field(r, p.f_packet_length, size);
    r.bytes.assign(frame, frame + size);
    r.owns_bytes = true;
    r.in_port = st.in_port;
    r.length_reg = static_cast<std::int64_t>(size);
    r.ingress_length = size;
    r.egress = false;
    ingress_queue.push_back(again);
    return finish(DropReason::kNone);
  }
  emit(port, size);
  finish(DropReason::kNone);
}

// --- one frame ---------------------------------------------------------------------------

void EngineState::run_frame(std::uint32_t in_port, const std::uint8_t* frame, std::size_t size, std::uint64_t time_ns) {
  Executor& x = *exec;
  result.outputs.clear();
  result.digests.clear();
  result.logs.clear();
  result.drops = 0;
  result.first_drop = DropReason::kNone;
  result.fault = nullptr;
  arena.len = 0;
  x.st.now_us = time_ns / 1000;
  x.st.logs = &result.logs;
  (in_port == P4_PORT_HOST ? stats.host_in : stats.uplink_in)++;
  // A frame the program cannot run over is dropped, never forwarded unexamined.
  if (size < P4_MIN_FRAME_BYTES) return drop(DropReason::kTooSmall);
  if (size > P4_MAX_FRAME_BYTES) return drop(DropReason::kTooBig);
  const bool device = options.policy == PortPolicy::kDevice;
  if (device ? in_port > P4_PORT_UPLINK : in_port >= (1u << P4_V1MODEL_PORT_BITS)) return drop(DropReason::kNoSuchPort);
  input = frame;
  input_len = size;
  x.st.in_port = in_port;
  passes = 1;
  ingress(-1);
  while (!ingress_queue.empty() || !egress_queue.empty()) {
    const bool to_ingress = !ingress_queue.empty();
    int job = to_ingress ? ingress_queue.front() : egress_queue.front();
    (to_ingress ? ingress_queue : egress_queue).pop_front();
    if (++passes > P4_MAX_PIPELINE_PASSES) {
      // A program that recirculates or resubmits forever: the rest of the frame's
      // packets are dropped as a fault, where bmv2 would loop.
      x.st.fault = "a frame caused more than 4096 pipeline passes (clones, resubmits, recirculations, copies)";
      release(job);
      drop(DropReason::kFault);
      continue;
    }
    if (to_ingress) ingress(job);
    else egress(job, pool[static_cast<std::size_t>(job)].port);
  }
  for (OutputPacket& o : result.outputs) o.data = arena.buf.get() + reinterpret_cast<std::size_t>(o.data);
}

const RunResult& Engine::run(std::uint32_t in_port, const std::uint8_t* frame, std::size_t size, std::uint64_t time_ns) {
  impl_->run_frame(in_port, frame, size, time_ns);
  return impl_->result;
}

Verdict Engine::process(std::uint32_t in_port, const std::uint8_t* frame, std::size_t size) {
  const RunResult& r = run(in_port, frame, size, 0);
  Verdict v;
  if (!r.outputs.empty()) {
    v.port = r.outputs[0].port;
    v.data = r.outputs[0].data;
    v.size = r.outputs[0].size;
    return v;
  }
  v.dropped = true;
  v.reason = r.first_drop == DropReason::kNone ? DropReason::kEgressDrop : r.first_drop;
  v.fault = r.fault;
  return v;
}

}  // namespace dpusim::p4
