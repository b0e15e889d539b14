// Live update (vnet_pci_dev_lu.c, vnet_pci_dev_lu.h; the DOCA guide §7.9): a running process of
// the application (the active) hands its endpoints and then its TLP channel to a new process
// (the standby) without the host noticing, and the standby becomes the next active (chainable).
//
//   A(active) <- B(standby) connects -> A exports state + cmd FD -> B reconstructs device/EP/
//   engines from export blobs, replays VQ cfg (engines IDLE) -> B DEV_READY -> A DEV_GO (per
//   device, after stopping it) -> B enables engines -> B DEV_ACK -> TLP channel handover ->
//   B active (chainable)
//
// Roles (--lu-mode): none (SIGUSR1 kills the process: no handler), active (a SIGUSR1 handler and
// a listener on the socket), standby (started from a scenario beside the active:
// VnetApp::start_standby). Each role's flow runs on the process's main thread once it has left
// its progress loop: the active from the main-loop iteration after SIGUSR1, the standby from
// its start until its restore completes; meanwhile PE1 serves nothing (pe1.h's hold) and host
// TLPs wait. Every step has the reference's log line, wait and time-out (300 s for the device
// LU, 60 s for the channel LU), and a failure has the reference's outcome: after the switchover
// the device LU is not rolled back; the channel LU rolls back to the active (lu_active.cpp,
// lu_standby.cpp). Messages: lu_socket.h; the export: lu_export.h; the channel's state:
// lu_channel.h. Events: "lu_process" (pid, op: start, exit, killed, idle, active; reason),
// "lu_state" (pid, from, to), "lu_msg", "lu_tlp_wait" (pe1.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tlm/activity.h"
#include "vnet/switch/acg.h"
#include "vnet/app/app_process.h"
#include "vnet/lu/lu_export.h"
#include "vnet/lu/lu_socket.h"
#include "vnet/app/vnet_options.h"

namespace dpusim::vnet {

enum class LuMode { NONE, ACTIVE, STANDBY };
enum class LuState { INITIALIZED, PRE_COPY, STOPPED, MIGRATED };
const char* lu_state_name(LuState s);

// The device LU's waits (VNET_LU_TIMEOUT_SEC) and the channel LU's (VNET_LU_CH_TIMEOUT_SEC).
inline constexpr uint64_t VNET_LU_TIMEOUT_SEC = 300;
inline constexpr uint64_t VNET_LU_CH_TIMEOUT_SEC = 60;
inline constexpr const char* kLuSocketPath = "/tmp/vnet_live_update.sock";
inline constexpr const char* kLuLockPath = "/tmp/vnet_live_update.lock";
inline constexpr const char* kLuShmName = "/vnet_live_update";

// What the processes share on the DPU for a live update: the listening socket (backlog 1), the
// lock file a waiting standby holds, the SHM segment, the fault points, and the processes
// themselves (a standby is started here).
class LuRendezvous {
 public:
  LuRendezvous(AppShared& shared, const AcgSpec& acg);
  // The platform's first process, in the mode of its options.
  void adopt(AppProcess& first);
  // A new process of the application with `options` (lu-mode standby): its pid.
  unsigned start_standby(const VnetOptions& options);
  // A signal to process `pid` (0: the process serving the host): what it did ("handover",
  // "killed", "ignored": a handover is already under way).
  std::string signal(const std::string& name, unsigned pid);
  // The processes, owned here (pid k is processes()[k - 1]).
  std::vector<std::unique_ptr<AppProcess>>& processes() { return procs_; }

  AppShared& shared;
  AcgSpec acg;
  LuFaults faults;
  AppProcess* listener = nullptr;          // the active's listening socket, if any
  std::shared_ptr<LuSocket> backlog;       // a connection waiting for accept()
  std::function<void()> on_connect;        // the active's accept() waiting for one
  unsigned lock_pid = 0;                   // the standby holding the lock file
  std::optional<std::vector<uint8_t>> shm;  // the segment, while it exists

 private:
  std::vector<std::unique_ptr<AppProcess>> procs_;
};

// One process's live update: its mode, state and the flows of its role.
class LiveUpdate {
 public:
  explicit LiveUpdate(AppProcess& p);
  ~LiveUpdate();

  LuMode mode() const { return mode_; }
  LuState state() const { return state_; }
  bool alive() const { return alive_; }
  void set_mode(LuMode m);  // none or active at startup: an active listens
  // SIGUSR1 arrives: "handover", "killed" or "ignored".
  std::string sigusr1();
  // The standby's flow from its process start (lu_standby.cpp).
  void run_standby(const VnetOptions& cli);

 private:
  // lu_active.cpp
  void notice_signal();
  void save_state();
  void accept_and_send_fd();
  void await_ready();
  void stop_devices();
  void await_ack();
  void channel_export();
  void channel_on_begin(std::optional<LuMessage> m, const char* error);
  void channel_on_end(std::optional<LuMessage> m, const char* error);
  void channel_rollback(const char* line, const char* reason);
  void handover_failed(const char* reason);
  void process_cleanup();
  // lu_standby.cpp
  void standby_connect();
  void standby_await_fd();
  void standby_open_shm();
  void standby_build();
  void standby_replay(unsigned k);
  void standby_phase2();
  void standby_enable(unsigned k);
  void standby_phase2_failed(const char* why);
  void standby_channel();
  void standby_on_begin_ack(std::optional<LuMessage> m, const char* error);
  void standby_finish_channel(bool ok);
  void standby_chain();
  void standby_fail(const char* line);
  // live_update.cpp
  void set_state(LuState s);
  void exit_process(const std::string& reason);
  void note(const char* op, const std::string& reason = "");
  AppState& app();
  uint64_t sec(uint64_t s) const { return s * 1000000000000ull; }
  sc_core::sc_time copy_cost(size_t bytes) const;
  bool step_fails(const char* point);
  // The device records this process drives, by endpoint (export order).
  std::vector<unsigned> exported_eps() const;

  AppProcess& p_;
  LuRendezvous& rv_;
  pcie::Activity thread_;  // the main thread while it runs the live update
  LuMode mode_ = LuMode::NONE;
  LuState state_ = LuState::INITIALIZED;
  bool alive_ = true, signalled_ = false, failed_ = false;
  std::shared_ptr<LuSocket> sock_;  // the connection (the active's end 1, the standby's end 0)
  int side_ = 0;
  VnetOptions cli_;
  LuExport export_;
  std::vector<unsigned> eps_;  // endpoint of each exported device
  // The standby's engines as the replay prepared them, installed at the enable.
  struct StagedEngine {
    bool started = false, io_ctx = false;
    std::vector<bool> created, started_vq;
    std::vector<std::optional<VqConf>> conf;
  };
  std::vector<StagedEngine> staged_;
  struct EnableThread {
    explicit EnableThread(pcie::TimedQueue& q) : activity(q) {}
    pcie::Activity activity;
    bool done = false;
  };
  std::vector<std::unique_ptr<EnableThread>> enables_;
  std::vector<bool> enabled_ok_;
  unsigned go_received_ = 0;
  bool phase2_failed_ = false;
};

}  // namespace dpusim::vnet
