#include "tlm/trace_tasks.h"

#include <stdexcept>

#include "tlm/event_log.h"
#include "tlm/trace_writer.h"

namespace dpusim::pcie {

namespace {
constexpr std::string_view kCategory = "task";
}

TaskTrace::Task* TaskTrace::find(uint64_t task) {
  return task >= 1 && task <= tasks_.size() && tasks_[task - 1].open ? &tasks_[task - 1] : nullptr;
}

void TaskTrace::spawn(TraceWriter& out, uint64_t ps, uint64_t task, std::string_view name) {
  if (task == 0 || task > tasks_.size() + 1)
    throw std::invalid_argument("trace: task number " + std::to_string(task) + " is not one of 1.." +
                                std::to_string(tasks_.size() + 1) + " (tasks are numbered in spawn order)");
  if (tasks_.size() < task) tasks_.resize(task);
  Task& t = tasks_[task - 1];
  if (t.open) end(out, ps, task, {});
  t.open = true;
  t.waiting = false;
  t.begin_ps = ps;
  t.name.assign(name);
  buf_.assign(name);
  buf_.append(" #");
  buf_.append(std::to_string(task));
  t.track = out.track("host", buf_);
  t.args.assign("{\"name\":");
  EventLog::append_json_string(t.args, name);
  t.args.append(",\"task\":");
  t.args.append(std::to_string(task));
}

void TaskTrace::close_wait(TraceWriter& out, Task& t, uint64_t ps, std::string_view end) {
  if (!t.waiting) return;
  t.waiting = false;
  buf_.assign(t.args);
  buf_.append(",\"what\":");
  EventLog::append_json_string(buf_, t.what);
  if (!end.empty()) buf_.append(",\"end\":").append(end);
  buf_.push_back('}');
  out.slice(t.track, t.wait_ps, ps, t.what, kCategory, buf_, false);
}

void TaskTrace::wait(TraceWriter& out, uint64_t ps, uint64_t task, std::string_view what) {
  Task* t = find(task);
  if (!t) return;
  close_wait(out, *t, ps, {});
  t->waiting = true;
  t->wait_ps = ps;
  t->what.assign(what);
}

void TaskTrace::end(TraceWriter& out, uint64_t ps, uint64_t task, std::string_view outcome) {
  Task* t = find(task);
  if (!t) return;
  // "end": {"name":..,"outcome":..,"task":n}, its fields in key order.
  end_.assign("{\"name\":");
  EventLog::append_json_string(end_, t->name);
  if (!outcome.empty()) {
    end_.append(",\"outcome\":");
    EventLog::append_json_string(end_, outcome);
  }
  end_.append(",\"task\":").append(std::to_string(task)).push_back('}');
  close_wait(out, *t, ps, end_);
  buf_.assign(t->args);
  buf_.append(",\"end\":").append(end_).push_back('}');
  out.slice(t->track, t->begin_ps, ps, t->name, kCategory, buf_, false);
  t->open = false;
}

void TaskTrace::finish(TraceWriter& out, uint64_t end_ps) {
  static constexpr std::string_view kOpen = "{\"open_at_end\":true}";
  for (Task& t : tasks_) {
    if (!t.open) continue;
    close_wait(out, t, end_ps, kOpen);
    buf_.assign(t.args);
    buf_.append(",\"end\":").append(kOpen).push_back('}');
    out.slice(t.track, t.begin_ps, end_ps, t.name, kCategory, buf_, false);
    t.open = false;
  }
}

}  // namespace dpusim::pcie
