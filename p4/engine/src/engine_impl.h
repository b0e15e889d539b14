// Engine's private state, shared by engine.cpp (loading, descriptions, the metadata-only
// run), simple_switch.cpp (the packet flow and the port policies), update.cpp and
// update_profile.cpp (TableUpdates: table and action profile updates) and control.cpp
// (RuntimeObjects and Replication: the other control-plane objects).
#pragma once

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "dpusim/p4/engine.h"
#include "exec.h"
#include "program.h"
#include "runtime.h"
#include "table_updates.h"

namespace dpusim::p4 {

// A packet instance between pipelines (or the packet in flight, set aside while a copy of
// it is made): its header vector, its bytes and simple_switch's per-packet registers. A
// queued job owns its bytes: an egress job the payload after its parsed headers, an
// ingress job (resubmit, recirculate) the whole frame.
struct PacketJob {
  bool egress = false;
  std::uint32_t port = 0;  // egress: the egress port
  std::vector<std::uint64_t> phv;
  std::vector<std::uint8_t> valid;
  std::vector<std::uint32_t> stack_next, union_stack_next;
  std::vector<std::uint16_t> vl_bits;
  std::vector<std::uint8_t> bytes;
  bool owns_bytes = false;  // queued: bytes hold the frame; set aside: pkt points at it
  const std::uint8_t* pkt = nullptr;
  std::size_t pkt_len = 0, cursor = 0;
  std::uint32_t in_port = 0;
  bool egress_spec_written = false;
  std::int64_t truncate_len = -1, length_reg = 0;
  std::uint64_t ingress_length = 0;
  std::uint32_t recirculate_list = 0, learn_list = 0, resubmit_list = 0;
  bool checksum_error = false;
};

struct EngineState {
  Program program;
  LoadOptions options;
  std::vector<TableRuntime> tables;
  Runtime runtime;
  std::unique_ptr<Executor> exec;
  Stats stats;
  RunResult result;
  // The bytes of result.outputs, one after another; the deparser writes each packet in place.
  struct Arena {
    std::unique_ptr<std::uint8_t[]> buf;
    std::size_t cap = 0, len = 0;
    // Room for `need` more bytes at the end (the buffer may move).
    std::uint8_t* tail(std::size_t need) {
      if (len + need > cap) {
        std::size_t c = std::max(len + need, cap * 2);
        std::unique_ptr<std::uint8_t[]> b(new std::uint8_t[c]);
        if (len) std::memcpy(b.get(), buf.get(), len);
        buf = std::move(b);
        cap = c;
      }
      return buf.get() + len;
    }
  } arena;

  // simple_switch.cpp: one input frame's packets, run to completion.
  std::vector<PacketJob> pool;
  std::vector<int> free_jobs;
  std::deque<int> ingress_queue, egress_queue;
  int passes = 0;
  const std::uint8_t* input = nullptr;
  std::size_t input_len = 0;

  // The control plane's ways in (update.cpp, control.cpp, engine.cpp).
  TableUpdates updates{program, tables, runtime};
  RuntimeObjects objects{*this};
  Replication replication{*this};
  MetadataRun metadata{*this};

  void init_tables();

  // simple_switch.cpp
  void run_frame(std::uint32_t in_port, const std::uint8_t* frame, std::size_t size, std::uint64_t time_ns);
  void ingress(int job);                 // job -1: the input frame
  void egress(int job, std::uint32_t port);  // job -1: the packet in flight
  void end_of_ingress(int job);
  int new_job();
  void release(int job);
  int save();                            // the packet in flight, set aside
  void restore(int job);
  int snapshot_for_egress(std::uint32_t port);  // a queued copy of the packet in flight
  void enqueue(int job, std::uint32_t port);     // job -1: the packet in flight
  int multicast(int job, std::uint32_t mgid);    // copies of a job (or of the packet in flight)
  void clone_to_session(int job, std::uint32_t session);
  void copy_field_list(PacketJob& to, const std::vector<std::uint64_t>& from, std::uint32_t list_id) const;
  void reset_metadata(PacketJob& job) const;
  void set_field(PacketJob& job, int field, std::uint64_t value) const;
  void drop(DropReason reason);
  void emit(std::uint32_t port, std::size_t size);  // the packet deparsed at the arena's tail
  bool port_exists(std::uint32_t port) const;
};

}  // namespace dpusim::p4
