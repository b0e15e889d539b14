// The bridge between dpusim and a user-mode Linux kernel (ARCH=um, docs/linux.md): dpusim is
// the kernel's time-travel scheduler (time-travel=ext, include/uapi/linux/um_timetravel.h) and
// the vhost-user backend of one virt-pci device per endpoint function the kernel should see
// (virtio_uml.device=<socket>:<id>, arch/um/drivers/virt-pci.c).
//
// Determinism: the kernel runs only between a RUN the bridge sends and the WAIT it answers
// with, at the simulated time of the grant; while it runs, SystemC does not (the bridge serves
// its messages synchronously, one at a time, re-polling after each), and while SystemC runs,
// the kernel waits. Every message the kernel sends in a run slice is blocking on its side (time
// messages and, once REPLY_ACK is negotiated, every vhost-user request wait for an answer), so
// the order the bridge handles them in is the kernel's program order. Device-side events (a
// read's completion, an MSI) change the kernel's memory only while it waits, and an interrupt
// reaches it as a vhost-user VRING_CALL that its time-travel handler turns into an event at the
// current simulated time. The kernel's console is read before each message is handled, and its
// lines are logged at the time of the slice that printed them.
//
// A write the kernel then busy-waits on (LinuxDeviceSpec::held_writes: virtio_net spins with
// cpu_relax() on its control queue, and a spinning kernel sends no message, so simulated time
// could not pass) holds the kernel: the bridge keeps the REPLY_ACK of that virt-pci kick and
// lets SystemC run until the device has written the kernel's memory and then been quiet for
// kHoldQuietPs, or kHoldCapPs passed, and only then answers (event "held_write"). The kernel's
// clock stood still meanwhile, and stays behind simulated time by the time held: a grant for
// kernel time t runs at simulated time t plus every hold so far, so each poll of a later read
// still lets simulated time pass.
//
// Guest commands (LinuxBridge::console_input) are lines on the kernel's console input; the
// guest's init (linux/guest_init.sh) runs each between "@@begin N" and "@@end N rc" markers,
// which the bridge turns into one "sh" event with the output.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/linux_device.h"
#include "host/root_complex.h"
#include "tlm/sim_context.h"
#include "tlm/timed_queue.h"

namespace dpusim::host {

struct LinuxSpec {
  std::string kernel;    // the ARCH=um "linux" executable
  std::string init;      // the guest's init, a host path read through hostfs (read-only root)
  std::string run_dir;   // sockets and the kernel's scratch files (created if missing)
  std::string preload;   // the getrandom shim that seeds the kernel from the platform seed ("" none)
  unsigned mem_mib = 128;          // the kernel's RAM; below host memory's first allocation
  uint32_t virtio_device_id = 1234;  // CONFIG_UML_PCI_OVER_VIRTIO_DEVICE_ID of the kernel
  std::vector<std::string> args;   // more kernel command-line arguments
  std::vector<uml::LinuxDeviceSpec> devices;  // slot i of the kernel's bus 0 is devices[i]
};

class LinuxBridge {
 public:
  static constexpr unsigned kMaxDevices = 8;  // virt-pci's MAX_DEVICES
  // Time of day the kernel reads (UM_TIMETRAVEL_GET_TOD) at simulated time 0: 2026-01-01 UTC.
  static constexpr uint64_t kEpochNs = 1767225600ull * 1000000000ull;
  static constexpr uint64_t kHoldQuietPs = 50000000;      // 50 us
  static constexpr uint64_t kHoldCapPs = 2000000000000;   // 2 s

  LinuxBridge(pcie::SimContext& ctx, RootComplex& rc, pcie::TimedQueue& timer);
  ~LinuxBridge();
  LinuxBridge(const LinuxBridge&) = delete;
  LinuxBridge& operator=(const LinuxBridge&) = delete;

  // Starts the kernel and serves it until its first WAIT. Throws std::invalid_argument for a
  // bad spec (no kernel, too many devices, a device without a BAR...), std::runtime_error when
  // the process cannot be started or does not connect.
  void start(const LinuxSpec& spec);
  // A line for the guest's console input (a newline is added).
  void console_input(const std::string& line);
  bool running() const { return pid_ > 0; }
  // An MSI from one of the kernel's functions becomes a virt-pci MSI message: true if claimed.
  bool claim_msi(const MsiEvent& ev);
  // Ends a kernel that is still running (the platform's end): killed, logged.
  void stop();

 private:
  enum class Stop { Waited, Replied, Held, Ended };
  void spawn(const LinuxSpec& spec);
  Stop serve(int reply_fd);  // until WAIT (reply_fd < 0), a reply on reply_fd, a hold, or the end
  void finish_slice(Stop s);
  void check_hold();
  void accept_ready(const std::vector<short>& revents);
  bool read_vhost(size_t dev);  // one message; false at EOF
  bool read_time(bool* waited);  // one message; false at EOF
  void answer_time(const uml::TimetravelMsg& m, bool* waited);
  void drain_console();
  // The vhost_user_closed events of the sockets found closed, in slot order. A socket the kernel
  // closes while it runs is reported before its next message is handled (which closes came
  // first between two messages the bridge cannot know: a close does not wait for an answer);
  // at the kernel's exit, every socket still open (ended()).
  void report_closed();
  void console_line(std::string line);
  void after_wait();
  void call(uml::LinuxDevice& d, uint32_t queue);
  void reschedule();
  void grant();
  void ended(const std::string& why);
  // The kernel's clock: simulated time less the time it spent held (it stood still then).
  uint64_t now_ns() const { return (ctx_.local_ps() - held_total_ps_) / 1000; }
  uml::LinuxDeviceHost device_host(size_t index);

  pcie::SimContext& ctx_;
  RootComplex& rc_;
  pcie::TimedQueue& timer_;
  std::string run_dir_;
  pid_t pid_ = -1;
  int time_listen_ = -1, time_fd_ = -1, stdin_fd_ = -1, stdout_fd_ = -1;
  std::vector<int> listen_fds_, dev_fds_;
  std::vector<bool> closed_;  // closed, not yet reported (report_closed())
  std::vector<std::unique_ptr<uml::LinuxDevice>> devs_;
  static constexpr uint64_t kNever = UINT64_MAX;
  uint64_t requested_ns_ = kNever;
  bool waiting_ = false;
  std::optional<pcie::TimedQueue::Key> grant_;
  std::string console_;  // a partial console line
  struct Command {
    uint64_t id = 0;
    std::string out;
  };
  std::optional<Command> command_;  // between "@@begin" and "@@end"
  std::map<uint64_t, size_t> attached_;  // kernel memory attached to host memory: base -> device
  uint64_t messages_ = 0, grants_ = 0;
  struct Held {
    size_t dev = 0;
    std::vector<uint8_t> reply;
    uint64_t since_ps = 0, writes_at_start = 0, last_writes = 0;
  };
  std::optional<Held> held_;
  uint64_t held_total_ps_ = 0;
};

}  // namespace dpusim::host
