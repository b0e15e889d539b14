// The bridge between dpusim and a user-mode Linux kernel (linux_bridge.h).
#include "host/linux_bridge.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace dpusim::host {

namespace {

// How long the bridge waits for a kernel that owes it a message before declaring it hung:
// wall time, which decides only whether a run fails, never what a passing run logs.
constexpr int kHungMs = 300000;

int listen_unix(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path))
    throw std::invalid_argument("socket path " + path + " is longer than " + std::to_string(sizeof(addr.sun_path) - 1) +
                                " characters");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  unlink(path.c_str());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 1) != 0)
    throw std::runtime_error("cannot listen on " + path + ": " + std::strerror(errno));
  return fd;
}

bool read_full(int fd, uint8_t* p, size_t n) {
  while (n) {
    const ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= size_t(r);
  }
  return true;
}

bool write_full(int fd, const uint8_t* p, size_t n, const std::vector<int>& fds = {}) {
  bool first = true;
  while (n && fds.empty()) {  // a pipe (the console) or a socket: plain writes
    const ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  while (n) {
    iovec iov{const_cast<uint8_t*>(p), n};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)] = {};
    if (first && !fds.empty()) {
      msg.msg_control = control;
      msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
      cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    const ssize_t w = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    first = false;
    p += w;
    n -= size_t(w);
  }
  return true;
}

// Reads `n` bytes, collecting the file descriptors that came with them.
bool recv_with_fds(int fd, uint8_t* p, size_t n, std::vector<int>* fds) {
  while (n) {
    iovec iov{p, n};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 8)];
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    const ssize_t r = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int got;
        std::memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        fds->push_back(got);
      }
    }
    p += r;
    n -= size_t(r);
  }
  return true;
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

LinuxBridge::LinuxBridge(pcie::SimContext& ctx, RootComplex& rc, pcie::TimedQueue& timer)
    : ctx_(ctx), rc_(rc), timer_(timer) {}

LinuxBridge::~LinuxBridge() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  for (int* fd : {&time_listen_, &time_fd_, &stdin_fd_, &stdout_fd_}) close_fd(*fd);
  for (int& fd : listen_fds_) close_fd(fd);
  for (int& fd : dev_fds_) close_fd(fd);
  for (const auto& [base, dev] : attached_) rc_.memory.detach(base);
}

uml::LinuxDeviceHost LinuxBridge::device_host(size_t index) {
  uml::LinuxDeviceHost h;
  h.config_read = [this](uint16_t bdf, uint16_t off, unsigned size, uml::LinuxDeviceHost::Done done) {
    rc_.config_read(bdf, off, size, std::move(done));
  };
  h.config_write = [this](uint16_t bdf, uint16_t off, unsigned size, uint32_t value) {
    rc_.config_write(bdf, off, size, value, [](pcie::Result&&) {});
  };
  h.mem_read = [this](uint64_t addr, size_t len, uml::LinuxDeviceHost::Done done) {
    rc_.mem_read(addr, len, std::move(done));
  };
  h.mem_write = [this](uint64_t addr, std::vector<uint8_t> bytes) {
    rc_.mem_write(addr, std::move(bytes), [](pcie::Result&&) {});
  };
  h.bad_request = [this](const std::string& device, const std::string& what) {
    ctx_.event("linux", "bad_request").str("device", device).str("what", what);
  };
  h.attach_memory = [this, index](uint64_t base, uint64_t size, uint8_t* data) {
    if (attached_.count(base)) return;  // every device maps the same kernel RAM: the first serves
    try {
      rc_.memory.attach(base, size, data);
      attached_[base] = index;
    } catch (const std::invalid_argument& e) {
      ctx_.event("linux", "bad_request").str("device", devs_[index]->spec().name).str("what", e.what());
    }
  };
  h.detach_memory = [this, index] {
    for (auto it = attached_.begin(); it != attached_.end();) {
      if (it->second != index) {
        ++it;
        continue;
      }
      rc_.memory.detach(it->first);
      it = attached_.erase(it);
    }
  };
  return h;
}

void LinuxBridge::start(const LinuxSpec& spec) {
  if (pid_ > 0) throw std::invalid_argument("a kernel is already running on this platform");
  if (spec.kernel.empty() || access(spec.kernel.c_str(), X_OK) != 0)
    throw std::invalid_argument("kernel " + spec.kernel + " is not an executable file");
  if (spec.devices.size() > kMaxDevices)
    throw std::invalid_argument(std::to_string(spec.devices.size()) + " devices for the kernel, virt-pci takes at most " +
                                std::to_string(kMaxDevices));
  if (spec.mem_mib < 32 || uint64_t(spec.mem_mib) << 20 > HostMemory::kLowBase)
    throw std::invalid_argument("kernel memory of " + std::to_string(spec.mem_mib) + " MiB outside 32.." +
                                std::to_string(HostMemory::kLowBase >> 20) + " (it must lie below host memory)");
  for (const auto& d : spec.devices)
    for (const auto& b : d.bars)
      if (b.index > 5 || b.size < 16 || (b.size & (b.size - 1)) || (b.is64 && b.index == 5))
        throw std::invalid_argument(d.name + ": BAR " + std::to_string(b.index) + " of " + std::to_string(b.size) +
                                    " bytes is not a BAR a function can have");
  run_dir_ = spec.run_dir;
  mkdir(run_dir_.c_str(), 0700);
  time_listen_ = listen_unix(run_dir_ + "/tt.sock");
  for (size_t i = 0; i < spec.devices.size(); ++i) {
    listen_fds_.push_back(listen_unix(run_dir_ + "/vu" + std::to_string(i) + ".sock"));
    dev_fds_.push_back(-1);
    closed_.push_back(false);
    const uint64_t msi = RootComplex::kMsiBase + 0x1000 * i;
    devs_.push_back(std::make_unique<uml::LinuxDevice>(spec.devices[i], device_host(i), msi));
  }
  spawn(spec);
  pcie::Event e = ctx_.event("linux", "linux_start");
  e.u64("devices", spec.devices.size()).u64("mem_mib", spec.mem_mib);
  for (const auto& d : spec.devices) e.str("slot" + std::to_string(&d - spec.devices.data()), d.name);
  finish_slice(serve(-1));
}

void LinuxBridge::spawn(const LinuxSpec& spec) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot make the console's pipes: ") + std::strerror(errno));
  fcntl(out[0], F_SETPIPE_SZ, 1 << 20);
  std::vector<std::string> argv = {"/usr/bin/setarch", "x86_64", "-R", spec.kernel};
  argv.push_back("mem=" + std::to_string(spec.mem_mib) + "M");
  // Paths relative to the run folder (the kernel's working directory): the kernel mixes its
  // command line into its random pool (random_init_early), so it must not name a folder that
  // differs from run to run.
  argv.push_back("time-travel=ext:0:tt.sock");
  for (size_t i = 0; i < spec.devices.size(); ++i)
    argv.push_back("virtio_uml.device=vu" + std::to_string(i) + ".sock:" + std::to_string(spec.virtio_device_id));
  for (const char* a : {"root=/dev/root", "rootfstype=hostfs", "rootflags=/", "ro", "con0=fd:0,fd:1", "con=null",
                        "umid=dpusim", "printk.time=1"})
    argv.push_back(a);
  argv.push_back("uml_dir=.");
  argv.push_back("init=" + spec.init);
  for (const auto& a : spec.args) argv.push_back(a);
  std::vector<std::string> env = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "TMPDIR=" + run_dir_, "HOME=" + run_dir_,
                                  "DPUSIM_LINUX_SEED=" + std::to_string(ctx_.seed())};
  if (!spec.preload.empty()) env.push_back("LD_PRELOAD=" + spec.preload);
  std::vector<char*> av, ev;
  for (auto& a : argv) av.push_back(a.data());
  av.push_back(nullptr);
  for (auto& a : env) ev.push_back(a.data());
  ev.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addchdir_np(&fa, run_dir_.c_str());
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  // stderr: the kernel's stderr console repeats what the console shows; kept in a file.
  const std::string err = "stderr.log";  // in the run folder (the chdir comes first)
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const int rc = posix_spawn(&pid_, av[0], &fa, nullptr, av.data(), ev.data());
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
  if (rc != 0) {
    pid_ = -1;
    throw std::runtime_error("cannot start " + spec.kernel + ": " + std::strerror(rc));
  }
  fcntl(stdout_fd_, F_SETFL, O_NONBLOCK);
}

LinuxBridge::Stop LinuxBridge::serve(int reply_fd) {
  while (pid_ > 0) {
    std::vector<pollfd> p;
    p.push_back({time_fd_ >= 0 ? time_fd_ : time_listen_, POLLIN, 0});
    for (size_t i = 0; i < devs_.size(); ++i) p.push_back({dev_fds_[i] >= 0 ? dev_fds_[i] : listen_fds_[i], POLLIN, 0});
    p.push_back({reply_fd, POLLIN, 0});
    p.push_back({stdout_fd_, POLLIN, 0});
    const int n = poll(p.data(), p.size(), kHungMs);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ended("the kernel sent nothing for " + std::to_string(kHungMs / 1000) + " s of wall time");
      return Stop::Ended;
    }
    drain_console();
    std::vector<short> rev;
    for (const pollfd& q : p) rev.push_back(q.revents);
    accept_ready(rev);
    // One message, then poll again: device sockets in slot order, the reply, the clock.
    bool handled = false;
    for (size_t i = 0; i < devs_.size() && !handled; ++i) {
      if (dev_fds_[i] < 0 || !(rev[1 + i] & (POLLIN | POLLHUP))) continue;
      handled = true;
      if (!read_vhost(i)) {
        close_fd(dev_fds_[i]);
        closed_[i] = true;  // reported by report_closed()
      }
    }
    if (held_) return Stop::Held;
    if (handled) continue;
    if (reply_fd >= 0 && (rev[1 + devs_.size()] & (POLLIN | POLLHUP))) {
      report_closed();
      uint8_t reply[uml::kVhostUserHeaderBytes + 8];
      if (!read_full(reply_fd, reply, sizeof(reply)))
        ctx_.event("linux", "bad_request").str("device", "slave").str("what", "the kernel closed its request channel");
      return Stop::Replied;
    }
    if (time_fd_ >= 0 && (rev[0] & (POLLIN | POLLHUP))) {
      bool waited = false;
      if (!read_time(&waited)) {
        ended("the kernel closed its time-travel socket");
        return Stop::Ended;
      }
      if (waited && reply_fd < 0) return Stop::Waited;
    }
  }
  return Stop::Ended;
}

void LinuxBridge::finish_slice(Stop s) {
  if (s == Stop::Waited) {
    after_wait();
  } else if (s == Stop::Held) {
    const uint64_t w = rc_.memory.attached_writes();
    held_->since_ps = ctx_.local_ps();
    held_->writes_at_start = held_->last_writes = w;
    timer_.at(sc_core::sc_time::from_value(kHoldQuietPs), [this] { check_hold(); });
  }
}

void LinuxBridge::check_hold() {
  if (!held_ || pid_ <= 0) return;
  const uint64_t w = rc_.memory.attached_writes(), now = ctx_.local_ps();
  const bool answered = w != held_->writes_at_start, quiet = w == held_->last_writes;
  held_->last_writes = w;
  if (!(answered && quiet) && now - held_->since_ps < kHoldCapPs) {
    timer_.at(sc_core::sc_time::from_value(kHoldQuietPs), [this] { check_hold(); });
    return;
  }
  Held h = std::move(*held_);
  held_.reset();
  held_total_ps_ += now - h.since_ps;
  ctx_.event("linux", "held_write")
      .str("device", devs_[h.dev]->spec().name)
      .u64("held_ps", now - h.since_ps)
      .boolean("answered", answered);
  if (dev_fds_[h.dev] < 0 || !write_full(dev_fds_[h.dev], h.reply.data(), h.reply.size())) {
    ended("the kernel's vhost-user socket closed during a held write");
    return;
  }
  finish_slice(serve(-1));
}

void LinuxBridge::accept_ready(const std::vector<short>& rev) {
  if (time_fd_ < 0 && (rev[0] & POLLIN)) {
    time_fd_ = accept4(time_listen_, nullptr, nullptr, SOCK_CLOEXEC);
    close_fd(time_listen_);
  }
  for (size_t i = 0; i < devs_.size(); ++i) {
    if (dev_fds_[i] >= 0 || listen_fds_[i] < 0 || !(rev[1 + i] & POLLIN)) continue;
    dev_fds_[i] = accept4(listen_fds_[i], nullptr, nullptr, SOCK_CLOEXEC);
    close_fd(listen_fds_[i]);
    ctx_.event("linux", "vhost_user_connected").str("device", devs_[i]->spec().name).u64("slot", i);
  }
}

bool LinuxBridge::read_vhost(size_t i) {
  std::vector<uint8_t> msg(uml::kVhostUserHeaderBytes);
  std::vector<int> fds;
  if (!recv_with_fds(dev_fds_[i], msg.data(), msg.size(), &fds)) return false;
  const uint32_t size = uml::le32(msg.data() + 8);
  if (size > uml::kVhostUserMaxPayload) {
    // A size the bridge will not read: the stream cannot be resynchronised, so the connection
    // ends (the kernel sees its device break), logged.
    devs_[i]->on_message(msg.data(), msg.size(), {});
    for (int fd : fds) close(fd);
    return false;
  }
  msg.resize(msg.size() + size);
  if (!recv_with_fds(dev_fds_[i], msg.data() + uml::kVhostUserHeaderBytes, size, &fds)) return false;
  report_closed();
  ++messages_;
  std::vector<uint8_t> reply = devs_[i]->on_message(msg.data(), msg.size(), std::move(fds));
  if (devs_[i]->take_hold() && !reply.empty()) {
    held_ = Held{i, std::move(reply)};
    return true;
  }
  return reply.empty() || write_full(dev_fds_[i], reply.data(), reply.size());
}

bool LinuxBridge::read_time(bool* waited) {
  uint8_t b[uml::kTimetravelMsgBytes];
  if (!read_full(time_fd_, b, sizeof(b))) return false;
  report_closed();
  ++messages_;
  uml::TimetravelMsg m;
  std::string error;
  if (!uml::parse_timetravel(b, sizeof(b), &m, &error)) {
    ctx_.event("linux", "bad_request").str("device", "time").str("what", error);
    m.op = uml::UM_TIMETRAVEL_BROADCAST;  // acknowledged and otherwise ignored
  }
  answer_time(m, waited);
  return true;
}

void LinuxBridge::answer_time(const uml::TimetravelMsg& m, bool* waited) {
  uml::TimetravelMsg ack{uml::UM_TIMETRAVEL_ACK, m.seq, 0};
  std::vector<int> fds;
  switch (m.op) {
    case uml::UM_TIMETRAVEL_START: {
      // The kernel maps the first descriptor as the scheduler's shared memory and uses it only
      // when its version matches; a zeroed page (version 0) keeps it on messages, which is
      // what the bridge serves. The second is its log descriptor, closed unused.
      const int shm = memfd_create("dpusim-tt", MFD_CLOEXEC);
      if (shm >= 0 && ftruncate(shm, 4096) == 0) fds = {shm, open("/dev/null", O_WRONLY | O_CLOEXEC)};
      ack.time = 0;
      break;
    }
    case uml::UM_TIMETRAVEL_REQUEST:
      requested_ns_ = m.time;
      if (waiting_) reschedule();
      break;
    case uml::UM_TIMETRAVEL_WAIT:  // acknowledged (without shared memory the kernel awaits it)
      waiting_ = true;
      *waited = true;
      break;
    case uml::UM_TIMETRAVEL_ACK:  // the kernel's answer to a RUN: nothing to answer
      return;
    case uml::UM_TIMETRAVEL_GET:
      ack.time = now_ns();
      break;
    case uml::UM_TIMETRAVEL_GET_TOD:
      ack.time = kEpochNs + now_ns();
      break;
    default:  // UPDATE (the kernel's time is the bridge's), BROADCAST: acknowledged
      break;
  }
  const std::vector<uint8_t> bytes = uml::timetravel_bytes(ack);
  write_full(time_fd_, bytes.data(), bytes.size(), fds);
  for (int fd : fds) close(fd);
}

void LinuxBridge::drain_console() {
  char buf[4096];
  for (;;) {
    const ssize_t r = read(stdout_fd_, buf, sizeof(buf));
    if (r <= 0) return;
    console_.append(buf, size_t(r));
    size_t nl;
    while ((nl = console_.find('\n')) != std::string::npos) {
      std::string line = console_.substr(0, nl);
      console_.erase(0, nl + 1);
      console_line(std::move(line));
    }
  }
}

void LinuxBridge::report_closed() {
  for (size_t i = 0; i < closed_.size(); ++i) {
    if (!closed_[i]) continue;
    closed_[i] = false;
    ctx_.event("linux", "vhost_user_closed").str("device", devs_[i]->spec().name);
  }
}

void LinuxBridge::console_line(std::string line) {
  line.erase(std::remove(line.begin(), line.end(), '\r'), line.end());
  ctx_.event("linux", "console").str("line", line);
  // The guest init's command markers (linux/guest_init.sh).
  if (line.rfind("@@begin ", 0) == 0) {
    command_ = Command{std::strtoull(line.c_str() + 8, nullptr, 10), {}};
    return;
  }
  if (line.rfind("@@end ", 0) == 0 && command_) {
    char* rest = nullptr;
    const uint64_t id = std::strtoull(line.c_str() + 6, &rest, 10);
    const long rc = std::strtol(rest, nullptr, 10);
    if (id == command_->id) {
      if (!command_->out.empty() && command_->out.back() == '\n') command_->out.pop_back();
      ctx_.event("linux", "sh").u64("id", id).json("rc", std::to_string(rc)).str("out", command_->out);
    }
    command_.reset();
    return;
  }
  if (command_) command_->out += line + "\n";
}

void LinuxBridge::after_wait() {
  // Interrupts the kernel is owed, now that it waits: MSIs that found a buffer, and the
  // command queue's callback once enough posted writes are done that its ring could fill.
  for (auto& d : devs_) {
    if (pid_ <= 0 || !waiting_) return;
    if (d->slave_fd() < 0) continue;
    if (d->flush_msis()) call(*d, uml::LinuxDevice::kIrqQueue);
    if (d->posted_unreaped() >= 32) {
      d->reaped();
      call(*d, uml::LinuxDevice::kCmdQueue);
    }
  }
  reschedule();
}

void LinuxBridge::call(uml::LinuxDevice& d, uint32_t queue) {
  const std::vector<uint8_t> msg = uml::vhost_user_vring_call(queue);
  if (!write_full(d.slave_fd(), msg.data(), msg.size())) {
    ctx_.event("linux", "bad_request").str("device", d.spec().name).str("what", "VRING_CALL could not be sent");
    return;
  }
  serve(d.slave_fd());
}

void LinuxBridge::reschedule() {
  if (grant_) {
    timer_.cancel(*grant_);
    grant_.reset();
  }
  // A request at the end of time (the idle loop with no timer) is no request.
  if (pid_ <= 0 || !waiting_ || requested_ns_ >= kNever / 1000 - held_total_ps_ / 1000) return;
  const uint64_t at = requested_ns_ * 1000 + held_total_ps_, now = ctx_.local_ps();
  grant_ = timer_.at(sc_core::sc_time::from_value(at > now ? at - now : 0), [this] { grant(); });
}

void LinuxBridge::grant() {
  grant_.reset();
  if (pid_ <= 0 || !waiting_) return;
  waiting_ = false;
  ++grants_;
  // The kernel runs at exactly the time it asked for: its time-travel loop checks that the
  // event it waited for is due (arch/um/kernel/time.c, time_travel_update_time).
  const uint64_t t = requested_ns_;
  requested_ns_ = kNever;
  const std::vector<uint8_t> bytes = uml::timetravel_bytes({uml::UM_TIMETRAVEL_RUN, 0, t});
  if (!write_full(time_fd_, bytes.data(), bytes.size())) {
    ended("the kernel's time-travel socket is closed");
    return;
  }
  finish_slice(serve(-1));
}

void LinuxBridge::console_input(const std::string& line) {
  if (pid_ <= 0) throw std::invalid_argument("no kernel is running");
  if (line.find('\n') != std::string::npos) throw std::invalid_argument("a console line may not contain a newline");
  const std::string l = line + "\n";
  if (!write_full(stdin_fd_, reinterpret_cast<const uint8_t*>(l.data()), l.size()))
    throw std::runtime_error("the kernel's console input is closed");
}

bool LinuxBridge::claim_msi(const MsiEvent& ev) {
  if (pid_ <= 0) return false;
  for (auto& d : devs_) {
    if (d->spec().bdf != ev.requester_id) continue;
    ctx_.event("linux", "msi").str("device", d->spec().name).u64("data", ev.data);
    if (d->queue_msi(ev.data) && waiting_ && d->slave_fd() >= 0) {
      call(*d, uml::LinuxDevice::kIrqQueue);
      reschedule();
    }
    return true;
  }
  return false;
}

void LinuxBridge::ended(const std::string& why) {
  if (pid_ <= 0) return;
  drain_console();
  // The kernel's exit closes every socket at once; which of them a poll saw first is the host
  // scheduler's choice, so each device still connected is reported closed here, in slot order.
  for (size_t i = 0; i < devs_.size(); ++i) {
    if (dev_fds_[i] < 0) continue;
    close_fd(dev_fds_[i]);
    closed_[i] = true;
  }
  report_closed();
  int status = 0;
  // The kernel halts by itself (its socket closes as it exits); one that hung is ended here.
  if (why.find("nothing for") != std::string::npos) ::kill(pid_, SIGKILL);
  waitpid(pid_, &status, 0);
  pid_ = -1;
  if (grant_) timer_.cancel(*grant_);
  grant_.reset();
  waiting_ = false;
  held_.reset();
  ctx_.event("linux", "linux_exit")
      .str("why", why)
      .json("status", std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status)))
      .u64("grants", grants_)
      .u64("messages", messages_);
}

void LinuxBridge::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ended("stopped at the end of the run");
}

}  // namespace dpusim::host
