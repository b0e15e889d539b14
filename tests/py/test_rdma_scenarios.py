"""The RDMA scenarios' event logs: payload bytes crossing the fabric as DMA, the error statuses
by name at their times, the allreduce's reductions done by the P4 program, the denial, its log
line and the flush. (test_scenarios.py replays each twice for the same hash.)"""
import copy
import os

import pytest

from dpusim.cli import load_scenario
from dpusim.run import run
from dpusim.units import s

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def once(name):
    fn, platform = load_scenario(os.path.join(ROOT, "scenarios", f"{name}.py"))
    res = run(fn, platform)
    assert res.ok, res.describe()
    return res


def test_pingpong():
    res = once("rdma_pingpong")
    for ep in ("ep0", "ep1"):
        assert [(e["op"], e["status"]) for e in res.events("rdma_wc", path=ep)] == [
            ("SEND", "OK"), ("RDMA_WRITE", "OK"), ("RDMA_READ", "OK")]
    kinds = [(e["from"], e["kind"]) for e in res.events("mesh_msg")]
    assert kinds.count(("ep0", "WRITE")) == kinds.count(("ep1", "WRITE")) == 1
    assert kinds.count(("ep0", "READ_REQ")) == kinds.count(("ep1", "READ_RESP")) == 1
    # The 6000-byte write lands on ep1 as DMA writes of its payload.
    written = sum(e["len"] * 4 for e in res.events("tlp", path="link_dsp1") if e["type"] == "MWr"
                  and e["dir"] == "up" and e["requester"] == "03:00.0")
    assert written >= 6000 + 1000 + 3000
    assert len(res.result) == 6


def test_faults():
    res = once("rdma_faults")
    wcs = res.events("rdma_wc", path="ep0")
    assert [e["status"] for e in wcs] == ["RETRY_EXCEEDED", "RNR_RETRY_EXCEEDED", "REMOTE_ACC_ERR", "LOCAL_PROT_ERR"]
    (drop,) = res.events("mesh_fault")
    assert drop["action"] == "drop" and wcs[0]["time_ps"] - drop["time_ps"] == s(30)
    assert [e["outcome"] for e in res.events("rdma_rnr", path="ep1")] == ["waiting", "retry exceeded"]


def test_fp8_allreduce():
    res = once("fp8_allreduce")
    p4 = [(e["path"], e["action"]) for e in res.events("rdma_p4")]
    # 4 nodes x 3 reductions done by the fp8 unit; every plain write dispatched.
    assert sorted(p for p, a in p4 if a == "done") == [f"ep{i}" for i in range(4) for _ in range(3)]
    assert sum(1 for _, a in p4 if a == "dispatch") == 4 * 6
    assert [(p, a) for p, a in p4 if a == "deny"] == [("ep2", "deny")]
    denied = [e["msg"] for e in res.events("log", path="ep2") if "denied" in e["msg"]]
    assert denied == ["rocm-ernic: P4 program denied work request: qp=2 opcode=4 (RDMA_WRITE) length=256"]
    assert [e["status"] for e in res.events("rdma_wc", path="ep2") if e["status"] != "OK"] == ["LOCAL_QP_OPER_ERR"]
    (flush,) = [e for e in res.events("ionic_rdma") if e["step"] == "flush"]
    assert (flush["wrs"], flush["status"]) == (1, "WR_FLUSH_ERR")
    assert (res.result["denied"], res.result["flushed"]) == ("LOCAL_QP_OPER_ERR", "WR_FLUSH_ERR")


@pytest.mark.rtl
def test_fp8_allreduce_gives_the_same_bytes_with_the_rtl_unit():
    """Every NIC's fp8-impl rtl: the verilated unit (docs/cosim.md) does the twelve reductions, and
    every node ends with the same bytes as with the C++ codec; only the timing moves (each
    reduction waits its cycles), so the hash differs."""
    fn, platform = load_scenario(os.path.join(ROOT, "scenarios", "fp8_allreduce.py"))
    on_rtl = copy.deepcopy(platform)
    for slot in on_rtl["topology"]["slots"]:
        slot["fp8-impl"] = "rtl"
    cpp, rtl = run(fn, platform), run(fn, on_rtl)
    assert cpp.ok, cpp.describe()
    assert rtl.ok, rtl.describe()
    same = ("elements", "result", "vectors_sha256", "denied", "flushed")
    assert {k: rtl.result[k] for k in same} == {k: cpp.result[k] for k in same}
    assert rtl.result["allreduce_ps"] > cpp.result["allreduce_ps"]
    assert rtl.hash != cpp.hash

    def decisions(res):
        return sorted((e["path"], e["qp"], e["op"], e["action"]) for e in res.events("rdma_p4"))

    assert decisions(rtl) == decisions(cpp)
    assert sum(1 for d in decisions(rtl) if d[3] == "done") == 12

