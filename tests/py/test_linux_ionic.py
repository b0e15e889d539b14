"""scenarios/linux_ionic.py's event log: the real ionic driver's frames through the P4 engines.

ep0 (minimal_forward.json, wired to ep1): the 3 entries installed before boot, then every
frame eth0 sent (1 ARP request, 20 echo requests, 186 TCP segments: SYN, 3 pure ACKs and 182
data segments for 256 KiB, the last with the FIN) goes to the wire, and every frame eth1 sent
(1 ARP reply, 20 echo replies, 19 TCP segments) comes back through it to the host. ep2
(loopback.json): the 5 frames the guest sent come back into its own ring and none reaches
the plug. The end-of-run stats lines say so, and the scenario's own checks (the counters read
through the control surface equal the driver's `ethtool -S`) passed."""
import os

import pytest

from dpusim.cli import load_scenario
from dpusim.run import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.linux


def stats(host_in, host_out, uplink_in, uplink_out, to_guest, to_net):
    return (f"rocm-ernic: P4 stats: host_in={host_in} host_out={host_out} uplink_in={uplink_in} "
            f"uplink_out={uplink_out} dropped=0 too_big=0 parse_errors=0 to_guest={to_guest} to_net={to_net} "
            f"to_upstream=0 egress_errors=0")


def test_linux_ionic_frames_through_both_programs():
    fn, platform = load_scenario(os.path.join(ROOT, "scenarios", "linux_ionic.py"))
    res = run(fn, platform)
    assert res.ok, res.describe()
    assert [(e["type"], e["table"]) for e in res.events("p4_update", path="ep0")] == [("INSERT", "ingress.fwd")] * 3

    lines = {p: [e["msg"] for e in res.events("log", path=p) if e["msg"].startswith("rocm-ernic: P4 stats:")]
             for p in ("ep0", "ep1", "ep2")}
    assert lines == {"ep0": [stats(207, 40, 40, 207, 40, 207)], "ep1": [], "ep2": [stats(5, 5, 0, 0, 5, 0)]}

    def verdicts(path):
        out = {}
        for e in res.events("p4_verdict", path=path):
            key = (e["in_port"], e.get("egress_port", e.get("dropped")))
            out[key] = out.get(key, 0) + 1
        return out

    assert verdicts("ep0") == {(0, 1): 207, (1, 0): 40}
    assert verdicts("ep2") == {(0, 0): 5}
    wire = res.events("frame", path="wire0")
    assert (sum(f["from"] == "ep0" for f in wire), sum(f["from"] == "ep1" for f in wire)) == (207, 40)
    assert res.events("frame", path="wire1") == []

    r = res.result
    assert r["eth0_after_ping"] == [21, 21]
    assert (r["eth0"], r["eth1"], r["eth2"]) == ([207, 40], [40, 207], [5, 5])
    # The NIC takes no offload (LIF_SETATTR answers features 0), so the driver posts every frame
    # with CSUM_NONE and no TSO, and gets no checksum verdict back.
    assert r["eth0_descriptors"] == {"tx_csum": 0, "tx_csum_none": 207, "tx_tso": 0, "rx_csum_none": 40,
                                     "rx_csum_complete": 0}
