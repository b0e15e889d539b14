// What both roles of a live update share: the rendezvous (socket, lock, SHM, processes), the
// signal, the LU state, a process's exit (live_update.h).
#include "vnet/lu/live_update.h"

#include <stdexcept>

#include "vnet/app/pe1.h"
#include "vnet/app/vnet_timing.h"

namespace dpusim::vnet {

const char* lu_state_name(LuState s) {
  static const char* const names[] = {"INITIALIZED", "PRE_COPY", "STOPPED", "MIGRATED"};
  return names[static_cast<int>(s)];
}

LuRendezvous::LuRendezvous(AppShared& s, const AcgSpec& a) : shared(s), acg(a) {}

void LuRendezvous::adopt(AppProcess& first) {
  const std::string& mode = first.state().opt.lu_mode;
  first.lu().set_mode(mode == "active" ? LuMode::ACTIVE : LuMode::NONE);
}

unsigned LuRendezvous::start_standby(const VnetOptions& options) {
  if (options.lu_mode != "standby")
    throw std::invalid_argument("a process started beside the active must have lu-mode 'standby', not '" +
                                options.lu_mode + "'");
  const unsigned pid = unsigned(procs_.size()) + 1;
  procs_.push_back(std::make_unique<AppProcess>(shared, pid, acg));
  procs_.back()->lu().run_standby(options);
  return pid;
}

std::string LuRendezvous::signal(const std::string& name, unsigned pid) {
  if (name != "SIGUSR1")
    throw std::invalid_argument("signal '" + name + "': only SIGUSR1 (the live update's trigger) is modelled");
  if (pid == 0) pid = shared.serving->pid();
  if (pid < 1 || pid > procs_.size()) throw std::invalid_argument("no process with pid " + std::to_string(pid));
  LiveUpdate& lu = procs_[pid - 1]->lu();
  if (!lu.alive()) throw std::invalid_argument("process " + std::to_string(pid) + " has exited");
  return lu.sigusr1();
}

LiveUpdate::LiveUpdate(AppProcess& p) : p_(p), rv_(p.shared().rendezvous()), thread_(p.shared().later) {}

LiveUpdate::~LiveUpdate() = default;

AppState& LiveUpdate::app() { return p_.state(); }

void LiveUpdate::note(const char* op, const std::string& reason) {
  pcie::Event e = p_.shared().ctx.event(p_.log().thread_path("vnet.lu"), "lu_process");
  e.u64("pid", p_.pid()).str("op", op);
  if (!reason.empty()) e.str("reason", reason);
}

void LiveUpdate::set_mode(LuMode m) {
  mode_ = m;
  if (m != LuMode::ACTIVE) return;
  // The active listens (a stale socket unlinked first) and unlinks a stale SHM segment.
  rv_.listener = &p_;
  rv_.shm.reset();
  note("listen", kLuSocketPath);
}

void LiveUpdate::set_state(LuState s) {
  p_.log().info(kMainThread, "LU state: %s -> %s", lu_state_name(state_), lu_state_name(s));
  state_ = s;
}

std::string LiveUpdate::sigusr1() {
  if (mode_ != LuMode::ACTIVE) {
    // No handler installed: SIGUSR1's default action terminates the process.
    exit_process("killed by SIGUSR1 (no handler in lu-mode " +
                 std::string(mode_ == LuMode::NONE ? "none" : "standby") + ")");
    return "killed";
  }
  if (signalled_) return "ignored";
  signalled_ = true;
  // The main loop notices the flag on its next iteration, after this one's PE1 progress.
  app().main_thread.then(app().cost(timing::main_loop_ps), [this] { notice_signal(); });
  return "handover";
}

void LiveUpdate::exit_process(const std::string& reason) {
  if (!alive_) return;
  alive_ = false;
  note("exit", reason);
  // A connection still waiting in the listener's backlog leaves it with its process.
  if (sock_ && rv_.backlog == sock_) rv_.backlog.reset();
  if (sock_) sock_->close(side_);
  if (rv_.lock_pid == p_.pid()) rv_.lock_pid = 0;
  if (rv_.listener == &p_) {
    rv_.listener = nullptr;
    rv_.backlog.reset();
    rv_.on_connect = nullptr;
  }
  if (!p_.built()) return;
  p_.pe1().hold_for_handover(true);  // nothing serves its TLPs any more
  AppShared& s = p_.shared();
  if (s.channel.primary() == &p_.pe1()) s.channel.set_primary(nullptr);
}

sc_core::sc_time LiveUpdate::copy_cost(size_t bytes) const {
  return sc_core::sc_time::from_value(bytes * p_.shared().ctx.timing.get(timing::lu_copy_kib_ps) / 1024);
}

bool LiveUpdate::step_fails(const char* point) {
  if (rv_.faults.fire(point) != "fail") return false;
  p_.shared().ctx.event(p_.log().thread_path("vnet.lu"), "fault").str("point", point).str("action", "fail");
  return true;
}

std::vector<unsigned> LiveUpdate::exported_eps() const {
  std::vector<unsigned> eps;
  AppState& a = p_.state();
  for (unsigned i = 0; i < a.num_ep(); ++i)
    if (a.controllers[i].device_present) eps.push_back(i);
  return eps;
}

}  // namespace dpusim::vnet
