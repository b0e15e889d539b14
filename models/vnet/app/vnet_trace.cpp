#include "vnet/app/vnet_trace.h"

namespace dpusim::vnet {

void add_trace_rules(pcie::TraceRules& rules) {
  using R = pcie::TraceRule;
  // PE1 serving a TLP: its handler's time (sink-only `pe1_service`, vnet_app.cpp).
  rules.add(R::span("pe1_service", "from_ps", "time_ps", "{path.head}", "{path.tail}", "{type}").in_category("pe1"));
  // Work items: waiting in the queue, then running on the worker (the controller is `ep`).
  rules.add(R::begin("work_queued", "queued/{item}", "{path.head}", "workqueue", "{type}").in_category("work"));
  for (const char* e : {"work_started", "work_skipped", "work_discarded"})
    rules.add(R::end(e, "queued/{item}"));
  rules.add(R::begin("work_started", "item/{item}", "{path.head}", "{path.tail}", "{type}").in_category("work"));
  rules.add(R::end("work_finished", "item/{item}"));
  rules.add(R::instant("work_skipped", "{path.head}", "{path.tail}", "skipped {type}").in_category("work"));
  rules.add(R::instant("work_discarded", "{path.head}", "workqueue", "discarded {type}").in_category("work"));
  rules.add(R::instant("work_dropped", "{path.head}", "workqueue", "dropped {type}").in_category("work"));
  // An MQ-start thread's life (sink-only `thread_start`/`thread_exit`, cvq.cpp).
  rules.add(R::begin("thread_start", "{path}", "{path.head}", "{path.tail}", "MQ start QPs {old_qps}->{new_qps} ep{ep}")
                .in_category("thread"));
  rules.add(R::end("thread_exit", "{path}"));
  // Virtqueues: the lifecycle state as slices, their traffic and interrupts as instants.
  rules.add(R::state("vq_state", "{path}", "vq{vq}", "{state}").in_category("vq"));
  rules.add(R::instant("vq_frame", "{path}", "vq{vq}", "frame {dir}").in_category("vq"));
  rules.add(R::instant("vq_interrupt", "{path}", "vq{vq}", "interrupt {outcome}").in_category("vq"));
  for (const char* e : {"vq_used", "vq_error", "doorbell", "ctrl_req", "tx_drop"})
    rules.add(R::instant(e, "{path}", "vq{vq}", "{event}").in_category("vq"));
  rules.add(R::state("engine", "{path}", "engine", "{op}"));
  for (const char* e : {"reset_generation", "device_present", "config_interrupt"})
    rules.add(R::instant(e, "ep{ep}", "device", "{event}"));
}

}  // namespace dpusim::vnet
