// simple_switch_CLI's commands on the runtime objects besides tables (bmv2's runtime
// interface): mirroring sessions, counters, registers, meters, parse value sets, entry
// timeouts and custom CRC parameters, each through Engine::objects() or replication().
#include "dpusim/p4/cli.h"

#include <sstream>
#include <string>
#include <vector>

#include "cli_values.h"
#include "dpusim/p4/engine.h"

namespace dpusim::p4 {

// Named apart from the other CLI helpers, with which a unity batch compiles this.
namespace object_commands {
namespace {

using cli_args::count;
using cli_args::engine_error;
using cli_args::handle_arg;

// mirroring_add <session> <port>, mirroring_add_mc <session> <group>, mirroring_delete <session>.
bool mirroring(Engine& engine, const std::string& cmd, const std::vector<std::string>& args, std::string* error) {
  UpdateError ue;
  std::uint32_t session = 0, target = 0;
  if (cmd == "mirroring_delete") {
    if (!count(args, 1, 1, error) || !handle_arg(args[0], "mirroring session", &session, error)) return false;
    return engine.replication().mirroring_delete(session, &ue) || engine_error(ue, error);
  }
  if (!count(args, 2, 2, error) || !handle_arg(args[0], "mirroring session", &session, error) ||
      !handle_arg(args[1], cmd == "mirroring_add" ? "port" : "multicast group", &target, error))
    return false;
  MirrorConfig c;
  if (cmd == "mirroring_add") {
    c.port_valid = true;
    c.port = target;
  } else {
    c.mgid_valid = true;
    c.mgid = target;
  }
  return engine.replication().mirroring_add(session, c, &ue) || engine_error(ue, error);
}

// counter_reset <c>, counter_read <c> <index>, counter_write <c> <index> <packets> <bytes>.
bool counter(Engine& engine, const ObjectDesc& c, const std::string& cmd, const std::vector<std::string>& args, std::string* out,
             std::string* error) {
  UpdateError ue;
  if (cmd == "counter_reset") return engine.objects().counter_reset(c.name, &ue) || engine_error(ue, error);
  std::uint32_t index = 0;
  if (!handle_arg(args[1], "index", &index, error)) return false;
  if (cmd == "counter_read") {
    std::uint64_t bytes = 0, packets = 0;
    if (!engine.objects().counter_read(c.name, index, &bytes, &packets, &ue)) return engine_error(ue, error);
    std::ostringstream s;
    if (!c.table.empty()) s << "this is the direct counter for table " << c.table << "\n";
    s << args[0] << "[" << index << "]= (" << bytes << " bytes, " << packets << " packets)\n";
    *out += s.str();
    return true;
  }
  Value pk, by;
  std::uint64_t packets = 0, bytes = 0;
  if (!parse_cli_integer(args[2], &pk) || !pk.fits_u64(&packets) || !parse_cli_integer(args[3], &by) || !by.fits_u64(&bytes)) {
    *error = "bad packet or byte count";
    return false;
  }
  return engine.objects().counter_write(c.name, index, bytes, packets, &ue) || engine_error(ue, error);
}

// register_reset <r>, register_read <r> [<index>], register_write <r> <index> <value>.
bool register_command(Engine& engine, const ObjectDesc& r, const std::string& cmd, const std::vector<std::string>& args,
                      std::string* out, std::string* error) {
  UpdateError ue;
  std::uint32_t index = 0;
  if (cmd == "register_reset") {
    if (!count(args, 1, 1, error)) return false;
    return engine.objects().register_reset(r.name, &ue) || engine_error(ue, error);
  }
  if (cmd == "register_read") {
    std::uint32_t lo = 0, hi = r.size;
    if (args.size() == 2) {
      if (!handle_arg(args[1], "index", &index, error)) return false;
      lo = index;
      hi = index + 1;
    }
    std::string list;
    for (std::uint32_t i = lo; i < hi; ++i) {
      Value v;
      if (!engine.objects().register_read(r.name, i, &v, &ue)) return engine_error(ue, error);
      list += (i == lo ? "" : ", ") + v.to_decimal();
    }
    *out += args.size() == 2 ? args[0] + "[" + std::to_string(index) + "]= " + list + "\n" : args[0] + "= " + list + "\n";
    return true;
  }
  Value v;
  if (!count(args, 3, 3, error) || !handle_arg(args[1], "index", &index, error)) return false;
  if (!parse_cli_integer(args[2], &v)) {
    *error = "bad register value '" + args[2] + "'";
    return false;
  }
  return engine.objects().register_write(r.name, index, v, &ue) || engine_error(ue, error);
}

// meter_set_rates <m> <index> <rate:burst>..., meter_array_set_rates <m> <rate:burst>...
bool meter(Engine& engine, const ObjectDesc& m, const std::string& cmd, const std::vector<std::string>& args, std::string* error) {
  UpdateError ue;
  const bool array = cmd == "meter_array_set_rates";
  std::uint32_t index = 0;
  if (!array && !handle_arg(args[1], "index", &index, error)) return false;
  std::vector<std::pair<double, std::uint64_t>> rates;
  for (std::size_t i = array ? 1 : 2; i < args.size(); ++i) {
    double rate;
    std::uint64_t burst;
    if (!parse_cli_rate(args[i], &rate, &burst)) {
      *error = "bad rate '" + args[i] + "' (write <units per microsecond>:<burst units>)";
      return false;
    }
    rates.emplace_back(rate, burst);
  }
  if (array && !m.table.empty()) {
    *error = "meter '" + m.name + "' is direct: set each entry's rates with meter_set_rates";
    return false;
  }
  for (std::uint32_t i = array ? 0 : index; i < (array ? m.size : index + 1); ++i)
    if (!engine.objects().meter_set_rates(m.name, i, rates, &ue)) return engine_error(ue, error);
  return true;
}

// pvs_add <set> <value>, pvs_remove <set> <value>, pvs_clear <set>.
bool value_set(Engine& engine, const ObjectDesc& v, const std::string& cmd, const std::vector<std::string>& args, std::string* error) {
  UpdateError ue;
  RuntimeObjects& objects = engine.objects();
  if (cmd == "pvs_clear") return objects.pvs_clear(v.name, &ue) || engine_error(ue, error);
  Value value;
  if (!parse_cli_param(args[1], v.width, &value, error)) return false;
  return (cmd == "pvs_add" ? objects.pvs_add(v.name, value, &ue) : objects.pvs_remove(v.name, value, &ue)) || engine_error(ue, error);
}

// set_crc16_parameters / set_crc32_parameters <calc> <poly> <init> <xor_out> <refin> <refout>.
bool crc_parameters(Engine& engine, const std::string& cmd, const std::vector<std::string>& args, std::string* error) {
  if (!count(args, 6, 6, error)) return false;
  Value poly, init, xor_out;
  if (!parse_cli_integer(args[1], &poly) || !parse_cli_integer(args[2], &init) || !parse_cli_integer(args[3], &xor_out)) {
    *error = "bad polynomial, initial remainder or final xor value";
    return false;
  }
  auto flag = [&](const std::string& w, bool* b) {
    if (w == "true" || w == "false") {
      *b = w == "true";
      return true;
    }
    *error = "reflection flags are true or false, not '" + w + "'";
    return false;
  };
  bool refin, refout;
  if (!flag(args[4], &refin) || !flag(args[5], &refout)) return false;
  UpdateError ue;
  return engine.objects().set_crc_parameters(args[0], cmd == "set_crc16_parameters" ? 16 : 32, poly.w[0], init.w[0], xor_out.w[0], refin,
                                   refout, &ue) ||
         engine_error(ue, error);
}

}  // namespace
}  // namespace object_commands

bool SwitchCli::object_command(const std::string& cmd, const std::vector<std::string>& args, std::string* out, std::string* error) {
  using namespace object_commands;
  if (cmd == "mirroring_add" || cmd == "mirroring_add_mc" || cmd == "mirroring_delete") return mirroring(engine_, cmd, args, error);
  if (cmd == "table_set_timeout" || cmd == "table_num_entries") {
    if (!count(args, cmd == "table_set_timeout" ? 3 : 1, cmd == "table_set_timeout" ? 3 : 1, error)) return false;
    const TableDesc* t = table(args[0], error);
    if (t == nullptr) return false;
    if (cmd == "table_num_entries") {
      for (const TableDesc& d : engine_.describe_tables())
        if (d.name == t->name) *out += std::to_string(d.entries) + "\n";
      return true;
    }
    std::uint32_t index = 0, ms = 0;
    UpdateError ue;
    if (!handle_arg(args[1], "entry handle", &index, error) || !handle_arg(args[2], "timeout", &ms, error)) return false;
    return engine_.objects().set_entry_timeout(t->name, index, ms, &ue) || engine_error(ue, error);
  }
  if (cmd.rfind("counter_", 0) == 0) {
    const std::size_t n = cmd == "counter_reset" ? 1 : cmd == "counter_read" ? 2 : 4;
    if (!count(args, n, n, error)) return false;
    const ObjectDesc* c = object("counter", args[0], error);
    return c != nullptr && counter(engine_, *c, cmd, args, out, error);
  }
  if (cmd.rfind("register_", 0) == 0) {
    if (!count(args, 1, cmd == "register_write" ? 3 : 2, error)) return false;
    const ObjectDesc* r = object("register", args[0], error);
    return r != nullptr && register_command(engine_, *r, cmd, args, out, error);
  }
  if (cmd == "meter_set_rates" || cmd == "meter_array_set_rates") {
    if (!count(args, cmd == "meter_array_set_rates" ? 1 : 2, 4096, error)) return false;
    const ObjectDesc* m = object("meter", args[0], error);
    return m != nullptr && meter(engine_, *m, cmd, args, error);
  }
  if (cmd == "pvs_add" || cmd == "pvs_remove" || cmd == "pvs_clear") {
    if (!count(args, cmd == "pvs_clear" ? 1 : 2, cmd == "pvs_clear" ? 1 : 2, error)) return false;
    const ObjectDesc* v = object("parse_vset", args[0], error);
    return v != nullptr && value_set(engine_, *v, cmd, args, error);
  }
  if (cmd == "set_crc16_parameters" || cmd == "set_crc32_parameters") return crc_parameters(engine_, cmd, args, error);
  *error = "command '" + cmd + "' is not supported";
  return false;
}

}  // namespace dpusim::p4
