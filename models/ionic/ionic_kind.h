// The ionic NIC as a kind of the generic switch's slots, with the emulator's flags as slot
// keys (docs/ionic.md):
//   {"kind": "ionic", "p4": true, "p4-program": "tests/data/p4/loopback.json",
//    "p4-guest-scope": "load", "mac": "02:a0:d1:00:00:01", "inband-control-mac": "..."}
// "p4-program" and "p4-guest-scope" imply "p4" (rocm-ernic's --p4-program and
// --p4-guest-scope imply --p4). The program is loaded while the document is parsed, as the
// device loads it (p4/rdma program.h), so a program the engine refuses refuses the document:
//   $.topology.slots[0].p4-program: <file>: error[<code>]: <message>
// A relative path resolves against the scenario's folder, then the repository root.
#pragma once

#include "device/endpoint_kind.h"

namespace dpusim::ionic {

platform::EndpointKind ionic_kind();

}  // namespace dpusim::ionic
