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

// What both roles of one process's live update share: the process, the rendezvous, the main
// thread while it runs the live update, the connection, the LU state, and the process's exit.
struct LuSession {
  explicit LuSession(AppProcess& p);

  void set_mode(LuMode m);  // none or active: an active listens
  void set_state(LuState s);
  // The process ends (its connection closed, the listener, lock and primary given up).
  void exit_process(const std::string& reason);
  void note(const char* op, const std::string& reason = "");  // an "lu_process" event
  AppState& app();
  static uint64_t sec(uint64_t s) { return s * 1000000000000ull; }
  sc_core::sc_time copy_cost(size_t bytes) const;  // copying `bytes` to or from the SHM
  bool step_fails(const char* point);  // a fault set at `point` fires "fail"

  AppProcess& p;
  LuRendezvous& rv;
  pcie::Activity thread;  // the main thread while it runs the live update
  LuMode mode = LuMode::NONE;
  LuState state = LuState::INITIALIZED;
  bool alive = true, signalled = false;
  std::shared_ptr<LuSocket> sock;  // the connection (the active's end 1, the standby's end 0)
  int side = 0;
};

// The active's switchover after SIGUSR1 and its side of the channel LU (lu_active.cpp).
class LuActive {
 public:
  explicit LuActive(LuSession& s);
  // The signal is noticed on the main loop's next iteration; the switchover follows.
  void handover();

 private:
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
  // The device records this process drives, by endpoint (export order).
  std::vector<unsigned> exported_eps() const;

  LuSession& s_;
  AppProcess& p_;
  LuRendezvous& rv_;
  pcie::Activity& thread_;
  std::vector<unsigned> eps_;  // endpoint of each exported device
  bool failed_ = false;
};

// The standby's restore, its side of the channel LU and its becoming the next active
// (lu_standby.cpp).
class LuStandby {
 public:
  explicit LuStandby(LuSession& s);
  // The flow from the process's start with command line `cli`.
  void run(const VnetOptions& cli);

 private:
  void connect();
  void await_fd();
  void open_shm();
  void build();
  void replay(unsigned k);
  void phase2();
  void enable(unsigned k);
  void phase2_failed(const char* why);
  void channel();
  void on_begin_ack(std::optional<LuMessage> m, const char* error);
  void finish_channel(bool ok);
  void chain();
  void fail(const char* line);

  LuSession& s_;
  AppProcess& p_;
  LuRendezvous& rv_;
  pcie::Activity& thread_;
  VnetOptions cli_;
  LuExport export_;
  std::vector<unsigned> eps_;  // endpoint of each exported device
  // The engines as the replay prepared them, installed at the enable.
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

// One process's live update: its mode, state and the flow of its role.
class LiveUpdate {
 public:
  explicit LiveUpdate(AppProcess& p);
  ~LiveUpdate();

  LuMode mode() const { return s_.mode; }
  LuState state() const { return s_.state; }
  bool alive() const { return s_.alive; }
  void set_mode(LuMode m) { s_.set_mode(m); }  // none or active at startup: an active listens
  // SIGUSR1 arrives: "handover", "killed" or "ignored".
  std::string sigusr1();
  // The standby's flow from its process start (lu_standby.cpp).
  void run_standby(const VnetOptions& cli) { standby_.run(cli); }

 private:
  LuSession s_;
  LuActive active_;
  LuStandby standby_;
};

}  // namespace dpusim::vnet
