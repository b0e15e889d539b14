"""The ionic NIC under the event-log levels, and the one slot kind that refuses lt: `summary`
leaves out the NIC's per-frame and per-work-request events (categories ionic_frame, rdma, mesh)
and keeps its device commands and log lines. An RTL block, which issues its own TLPs, has no lt
mode: the document's "fidelity": "lt" and sim.set_fidelity("lt") refuse it by name, before any
endpoint is switched. (The NIC's own lt mode: test_ionic_lt.py.)"""
import collections
import os

import pytest

import _dpusim

from dpusim.run import run
from dpusim.scenario_file import load_scenario
from dpusim.testing import run_ok

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def scenario_with_log(name, level):
    fn, doc = load_scenario(os.path.join(ROOT, "scenarios", name))
    doc = dict(doc)
    doc["outputs"] = {"log": level, "vcd": False, "pcap": False}
    return fn, doc


@pytest.mark.parametrize("name, dropped", [
    ("ionic_bringup.py", ("tx_frame", "rx_frame", "frame", "tlp")),
    ("rdma_pingpong.py", ("rdma_wqe", "rdma_wc", "rdma_recv", "mesh_msg", "tlp")),
])
def test_summary_leaves_out_the_ionic_datapath_events(name, dropped):
    fn, doc = scenario_with_log(name, "all")
    full = run_ok(fn, doc)
    fn, doc = scenario_with_log(name, "summary")
    summary = run_ok(fn, doc)
    assert summary.result == full.result  # the same run, written differently
    kinds = collections.Counter(e["event"] for e in summary.events())
    for event in dropped:
        assert kinds[event] == 0 and full.events(event), event
    for event in ("devcmd", "log", "msi", "platform_end"):
        assert kinds[event] == len(full.events(event)) > 0, event


RTL_NO_LT = "an RTL block issues its own TLPs, not through the DMA requester: its DMA is TLPs only (docs/fidelity.md)"


@pytest.mark.skipif(not _dpusim.build_options["DPUSIM_RTL"], reason="the RTL co-simulation is not built (DPUSIM_RTL=OFF)")
def test_an_rtl_block_refuses_lt_too():
    doc = {"topology": {"slots": [{"kind": "rtl_dma"}]}}
    assert run(lambda sim: None, dict(doc, fidelity="lt")).doc_error == "$.fidelity: slot 0 (rtl_dma): " + RTL_NO_LT

    async def scenario(sim):
        with pytest.raises(ValueError) as e:
            await sim.set_fidelity("lt", device="ep0")
        return str(e.value), sim.fidelity("ep0")

    assert run_ok(scenario, doc).result == ("ep0 has no lt fidelity: " + RTL_NO_LT, "tlp")
