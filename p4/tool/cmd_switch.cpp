// `dpusim p4 switch`: the engine as a drop-in for `simple_switch --use-files 0 -i ...`
// (bmv2's docs/simple_switch.md): interface NAME on port P reads NAME_in.pcap, where it
// exists, and writes NAME_out.pcap; ports are v1model's (0..510, 511 drops). A commands
// file in simple_switch_CLI's syntax configures the switch before the first frame, and an
// optional second one runs after the last (to read counters and registers then).
#include <cctype>
#include <iostream>

#include "dpusim/p4/limits.h"
#include "dpusim/p4/value.h"
#include "switch_files.h"
#include "tool.h"

namespace dpusim::p4::tool {

namespace {

int usage(const std::string& why) {
  std::cerr << "dpusim p4 switch: " << why << "\n"
            << "usage: dpusim p4 switch PROG.json -i PORT@NAME [-i PORT@NAME ...] --use-files [N] [--commands FILE]\n"
               "                         [--after FILE] [--seed S] [--log-console]\n";
  return 2;
}

}  // namespace

int cmd_switch(const std::vector<std::string>& args) {
  SwitchOptions o;
  bool use_files = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string* dst) {
      if (i + 1 >= args.size()) return false;
      *dst = args[++i];
      return true;
    };
    if (a == "-i" || a == "--interface") {
      std::string spec;
      if (!value(&spec)) return usage("-i needs PORT@NAME");
      std::size_t at = spec.find('@');
      Value pv;
      std::uint64_t port = 0;
      if (at == std::string::npos || at == 0 || at + 1 == spec.size() || !parse_number(spec.substr(0, at), &pv) ||
          !pv.fits_u64(&port) || port >= P4_V1MODEL_DROP_PORT)
        return usage("interface '" + spec + "' is not PORT@NAME with a port in 0..510");
      for (const SwitchInterface& f : o.interfaces)
        if (f.port == port || f.name == spec.substr(at + 1)) return usage("interface '" + spec + "' repeats a port or a name");
      o.interfaces.push_back({static_cast<std::uint32_t>(port), spec.substr(at + 1)});
    } else if (a == "--use-files") {
      use_files = true;
      // simple_switch's optional wait before reading the files; nothing waits here.
      if (i + 1 < args.size() && !args[i + 1].empty() && std::isdigit(static_cast<unsigned char>(args[i + 1][0]))) ++i;
    } else if (a == "--commands") {
      if (!value(&o.commands)) return usage("--commands needs a file");
    } else if (a == "--after") {
      if (!value(&o.after)) return usage("--after needs a file");
    } else if (a == "--seed") {
      std::string s;
      Value v;
      if (!value(&s) || !parse_number(s, &v) || !v.fits_u64(&o.seed)) return usage("--seed needs a number");
    } else if (a == "--log-console") {
      o.log_console = true;
    } else if (o.program.empty() && a.rfind("-", 0) != 0) {
      o.program = a;
    } else {
      return usage("unexpected argument '" + a + "'");
    }
  }
  if (o.program.empty()) return usage("no program");
  if (!use_files) return usage("only file mode is built: give --use-files");
  if (o.interfaces.empty()) return usage("no interface (-i PORT@NAME)");
  return run_switch_files(o, nullptr);
}

}  // namespace dpusim::p4::tool
