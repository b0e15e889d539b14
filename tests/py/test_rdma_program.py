"""Programs as the ionic device loads them (dpusim.p4's "device" policy): fp8_unit is the one
extern the target has, the rdma_metadata rules (tests/data/p4/rdma_reject_cases.json), and the
fp8 unit on the Ethernet path, where a call declines and does nothing."""
import json

import pytest

from dpusim import p4, rdma
from rdma_util import DATA, OPCODE, program


def test_the_worked_examples_load_on_the_device_and_not_on_bmv2():
    for name in ("fp8_policy.json", "fp8_convert.json"):
        assert p4.Engine.load_file(DATA / name).summary().startswith(name.replace(".json", ".p4"))
        # bmv2's simple_switch has no fp8_unit: refused by name.
        with pytest.raises(p4.LoadError) as e:
            p4.Engine.load_file(DATA / name, policy="v1model")
        assert e.value.code == "unsupported" and "'extern fp8_unit' is not supported yet" in e.value.message


CASES = json.loads((DATA / "rdma_reject_cases.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_each_reject_case_is_refused_with_its_code(case):
    def patch(doc):
        for op in case["patch"]:  # the few RFC 6902 operations the cases use
            *parents, last = [p for p in op["path"].split("/")[1:]]
            node = doc
            for p in parents:
                node = node[int(p)] if isinstance(node, list) else node[p]
            if op["op"] == "remove":
                del node[int(last)]
            elif last == "-":
                node.append(op["value"])
            elif isinstance(node, list) and op["op"] == "add":
                node.insert(int(last), op["value"])
            else:
                node[int(last) if isinstance(node, list) else last] = op["value"]
    with pytest.raises(p4.LoadError) as e:
        program(case["base"], patch)
    assert e.value.code == case["code"]
    assert case["message"] in e.value.message


def test_an_ethernet_frame_through_an_fp8_call_goes_on_past_it():
    # reduce() = fp8.apply(op, fmt); egress_spec = 1. Metadata is zero on the Ethernet path,
    # so an entry for opcode 0 fires for every frame, and the call must do nothing.
    def forward_after_call(doc):
        doc["actions"][1]["primitives"][1] = {
            "op": "assign", "parameters": [{"type": "field", "value": ["standard_metadata", "egress_spec"]},
                                           {"type": "hexstr", "value": "0x0001"}]}
    engine = program("fp8_policy.json", forward_after_call)
    engine.insert("ingress.rdma_policy", [{"field": OPCODE, "value": 0}], "ingress.reduce", {"op": 0, "fmt": 3})
    frame = bytes(12) + b"\x88\xb5" + bytes(50)
    assert engine.process(p4.HOST, frame) == p4.Forwarded(1, frame)
    # The worked example itself: the call does nothing, then mark_to_drop drops the frame.
    policy = program("fp8_policy.json")
    policy.insert("ingress.rdma_policy", [{"field": OPCODE, "value": 0}], "ingress.reduce", {"op": 0, "fmt": 3})
    assert policy.process(p4.HOST, frame) == p4.Dropped("ingress_drop")
    assert engine.stats["faults"] == 0


def test_the_path_refuses_nothing_it_can_run_and_reports_an_rdma_program():
    path = rdma.RdmaPath(program("fp8_convert.json"))
    assert path.has_rdma_program
    path.attach(None)
    assert not path.has_rdma_program
