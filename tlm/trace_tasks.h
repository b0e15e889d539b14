// The host's tasks in the trace (trace_writer.h): the Python runtime's coroutines (the
// scenario, a driver's probe, an IRQ thread; pybind/dpusim/trace.py) report their spawn, each
// await and their end straight to the writer, without an event or a rule.
//
//   - a task is a slice on its own track ("host", "<name> #<n>", n in spawn order) from its
//     spawn to its end, named by its name, with arguments {"name", "task"};
//   - each await is a slice nested in it, named by what it waits for ("sleep(100000000)"),
//     with arguments {"name", "task", "what"}. A task runs in no simulated time between two
//     awaits, so a wait ends where the task's next wait (or its end) begins;
//   - the end's outcome ("returned", "raised", "cancelled") is in both slices' arguments as
//     "end": {"name", "outcome", "task"}; what is still open at the end of the run ends there
//     with "end": {"open_at_end": true}.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::pcie {

class TraceWriter;

class TaskTrace {
 public:
  // `task` numbers run from 1 in spawn order (spawn() throws std::invalid_argument naming a
  // number past the next one); a number seen again restarts its task. A wait or an end of a
  // task that is not running is not drawn.
  void spawn(TraceWriter& out, uint64_t ps, uint64_t task, std::string_view name);
  void wait(TraceWriter& out, uint64_t ps, uint64_t task, std::string_view what);
  void end(TraceWriter& out, uint64_t ps, uint64_t task, std::string_view outcome);
  void finish(TraceWriter& out, uint64_t end_ps);

 private:
  struct Task {
    bool open = false, waiting = false;
    uint32_t track = 0;
    uint64_t begin_ps = 0, wait_ps = 0;
    std::string name;
    std::string args;  // {"name":...,"task":n  (without the closing brace)
    std::string what;  // the open wait's name
  };
  Task* find(uint64_t task);
  void close_wait(TraceWriter& out, Task& t, uint64_t ps, std::string_view end);

  std::vector<Task> tasks_;  // by number - 1
  std::string buf_, end_;
};

}  // namespace dpusim::pcie
