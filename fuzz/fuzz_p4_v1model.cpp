// Harness: frames through tests/data/p4/v1model_ops.json with every v1model primitive
// configured (an ops entry for each action, a mirroring session, a multicast group, a
// meter's rates, a selector group, routes). The first byte picks the ingress port, the
// second the engine time; the rest is the frame. Every packet a frame causes (clones,
// copies, recirculations) leaves within the frame limits or is dropped with a reason;
// faults and the pass limit drop, never crash or loop.
// link: dpusim_p4
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "dpusim/p4/cli.h"
#include "dpusim/p4/engine.h"
#include "dpusim/p4/limits.h"

namespace {
std::unique_ptr<dpusim::p4::Engine> load() {
  using namespace dpusim::p4;
  LoadOptions o;
  o.policy = PortPolicy::kV1Model;
  LoadError error;
  auto e = Engine::load_file(DPUSIM_SOURCE_DIR "/tests/data/p4/v1model_ops.json", o, &error);
  if (!e) std::abort();
  SwitchCli cli(*e);
  std::string out, why;
  const char* commands =
      "table_add ingress.ops ingress.set_port 1 => 2\n"
      "table_add ingress.ops ingress.count_it 2 => 3\n"
      "table_add ingress.ops ingress.meter_it 3 => 1\n"
      "table_add ingress.ops ingress.reg_rw 4 => 9\n"
      "table_add ingress.ops ingress.hash_it 5 =>\n"
      "table_add ingress.ops ingress.hash32 6 =>\n"
      "table_add ingress.ops ingress.rand 7 =>\n"
      "table_add ingress.ops ingress.clone_i2e 8 => 5\n"
      "table_add ingress.ops ingress.mcast 9 => 3\n"
      "table_add ingress.ops ingress.resubmit_it 10 =>\n"
      "table_add ingress.ops ingress.recirc_it 11 =>\n"
      "table_add ingress.ops ingress.digest_it 12 =>\n"
      "table_add ingress.ops ingress.log_it 13 =>\n"
      "table_add ingress.ops ingress.trunc 14 => 20\n"
      "table_add ingress.ops ingress.drop 15 =>\n"
      "table_add ingress.ranges ingress.set_out 0->0x80000000 0&&&0 => 7 3\n"
      "table_add ingress.stats NoAction 1 =>\n"
      "table_add egress.e2e egress.clone_e2e 1 0 => 6\n"
      "mirroring_add 5 7\n"
      "mirroring_add_mc 6 3\n"
      "mc_mgrp_create 3\n"
      "mc_node_create 1 1 2 3\n"
      "mc_node_create 2 4\n"
      "mc_node_associate 3 0\n"
      "mc_node_associate 3 1\n"
      "meter_set_rates ingress.mtr 1 0.5:4 1:8\n"
      "act_prof_create_member ingress.ap ingress.pick 3 1\n"
      "act_prof_create_member ingress.ap ingress.pick 4 2\n"
      "act_prof_create_group ingress.ap\n"
      "act_prof_add_member_to_group ingress.ap 0 0\n"
      "act_prof_add_member_to_group ingress.ap 1 0\n"
      "table_indirect_add_with_group ingress.select 2 => 0\n"
      "table_add ingress.routes ingress.route 10.0.0.0/8 => 1\n"
      "meter_set_rates ingress.dmtr 0 100:1500 200:3000\n";
  if (!cli.run(commands, &out, &why)) std::abort();
  e->set_seed(1);
  return e;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpusim::p4;
  static std::unique_ptr<Engine> engine = load();
  static std::uint64_t clock_ns = 0;
  if (size < 2) return 0;
  clock_ns += static_cast<std::uint64_t>(data[1]) * 1000;  // the clock never runs backwards
  const RunResult& r = engine->run(data[0], data + 2, size - 2, clock_ns);
  for (const OutputPacket& p : r.outputs)
    if (p.size > P4_MAX_FRAME_BYTES || p.data == nullptr || p.port >= P4_V1MODEL_DROP_PORT) std::abort();  // may be empty
  if (r.outputs.empty() && r.drops == 0) std::abort();  // a frame leaves or is counted as dropped
  if (r.drops > 0 && r.first_drop == DropReason::kNone) std::abort();
  return 0;
}
