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

LiveUpdate::LiveUpdate(AppProcess& p) : s_(p), active_(s_), standby_(s_) {}

LiveUpdate::~LiveUpdate() = default;

std::string LiveUpdate::sigusr1() {
  if (s_.mode != LuMode::ACTIVE) {
    // No handler installed: SIGUSR1's default action terminates the process.
    s_.exit_process("killed by SIGUSR1 (no handler in lu-mode " +
                    std::string(s_.mode == LuMode::NONE ? "none" : "standby") + ")");
    return "killed";
  }
  if (s_.signalled) return "ignored";
  s_.signalled = true;
  active_.handover();
  return "handover";
}

LuSession::LuSession(AppProcess& proc) : p(proc), rv(proc.shared().rendezvous()), thread(proc.shared().later) {}

AppState& LuSession::app() { return p.state(); }

void LuSession::note(const char* op, const std::string& reason) {
  pcie::Event e = p.shared().ctx.event(p.log().thread_path("vnet.lu"), "lu_process");
  e.u64("pid", p.pid()).str("op", op);
  if (!reason.empty()) e.str("reason", reason);
}

void LuSession::set_mode(LuMode m) {
  mode = m;
  if (m != LuMode::ACTIVE) return;
  // The active listens (a stale socket unlinked first) and unlinks a stale SHM segment.
  rv.listener = &p;
  rv.shm.reset();
  note("listen", kLuSocketPath);
}

void LuSession::set_state(LuState s) {
  p.log().info(kMainThread, "LU state: %s -> %s", lu_state_name(state), lu_state_name(s));
  state = s;
}

void LuSession::exit_process(const std::string& reason) {
  if (!alive) return;
  alive = false;
  note("exit", reason);
  // A connection still waiting in the listener's backlog leaves it with its process.
  if (sock && rv.backlog == sock) rv.backlog.reset();
  if (sock) sock->close(side);
  if (rv.lock_pid == p.pid()) rv.lock_pid = 0;
  if (rv.listener == &p) {
    rv.listener = nullptr;
    rv.backlog.reset();
    rv.on_connect = nullptr;
  }
  if (!p.built()) return;
  p.pe1().hold_for_handover(true);  // nothing serves its TLPs any more
  AppShared& s = p.shared();
  if (s.channel.primary() == &p.pe1()) s.channel.set_primary(nullptr);
}

sc_core::sc_time LuSession::copy_cost(size_t bytes) const {
  return sc_core::sc_time::from_value(bytes * p.shared().ctx.timing.get(timing::lu_copy_kib_ps) / 1024);
}

bool LuSession::step_fails(const char* point) {
  if (rv.faults.fire(point) != "fail") return false;
  p.shared().ctx.event(p.log().thread_path("vnet.lu"), "fault").str("point", point).str("action", "fail");
  return true;
}

}  // namespace dpusim::vnet
