"""A bad platform document is refused with the JSON path of the bad field and the reason."""
import json

import pytest

import _dpusim

validate = _dpusim.platform.validate
DocError = _dpusim.platform.DocError


@pytest.mark.parametrize("doc, message", [
    ("{", "$: not valid JSON"),
    ("[]", "$: must be a JSON object"),
    ({}, "$.topology: missing"),
    ({"topology": {"endpoints": 0}}, "$.topology.endpoints: 0 outside 1..32"),
    ({"topology": {"endpoints": 33}}, "$.topology.endpoints: 33 outside 1..32"),
    ({"topology": {"endpoints": 2, "slots": []}}, "$.topology: give exactly one of"),
    ({"topology": {"slots": []}}, "$.topology.slots: 0 slots outside 1..32"),
    ({"topology": {"slots": [{"kind": "nic"}]}}, "$.topology.slots[0].kind: unknown endpoint kind 'nic' (known: ionic, rtl_dma, test)"),
    ({"topology": {"slots": [{"kind": "ionic", "fp8-impl": "verilog"}]}},
     "$.topology.slots[0].fp8-impl: 'verilog' is not cpp (the C++ codec) or rtl (the verilated RTL unit)"),
    ({"topology": {"slots": [None, 3]}}, "$.topology.slots[1]: must be an endpoint object or null, not number"),
    ({"topology": {"slots": [{"kind": "test", "speed": 5}]}}, "$.topology.slots[0].speed: unknown key (known: kind)"),
    ({"topology": {"endpoints": 1}, "seed": -1}, "$.seed: must not be negative (got -1)"),
    ({"topology": {"endpoints": 1}, "seed": 1.5}, "$.seed: must be a non-negative integer, not number 1.5"),
    ({"topology": {"endpoints": 1}, "tpology": 1}, "$.tpology: unknown key (known: explore, fidelity, host, mesh, outputs, seed, timing, topology, wires)"),
    ({"topology": {"endpoints": 1}, "timing": {"link.host.gen": 7}}, "$.timing.link.host.gen: timing parameter 'link.host.gen' = 7 outside 1..6"),
    ({"topology": {"endpoints": 1}, "timing": {"link.dsp.width": 3}}, "is not a PCIe link width"),
    ({"topology": {"endpoints": 1}, "timing": {"switch.latency": 3}}, "$.timing.switch.latency: unknown timing parameter (known: cpl_timeout_ps, guest.tx_poll_ps, host.mem_read_ps"),
    ({"topology": {"endpoints": 1}, "host": {"max_payload_size": 384}}, "$.host.max_payload_size: 384 is not a power of two"),
    ({"topology": {"endpoints": 1}, "host": {"read_completion_boundary": 96}}, "$.host.read_completion_boundary:"),
    ({"topology": {"endpoints": 1}, "outputs": {"vcd": "yes"}}, "$.outputs.vcd: must be true or false, not \"yes\""),
    ({"topology": {"endpoints": 1}, "outputs": {"log": "verbose"}}, "$.outputs.log: log level 'verbose' is not all, summary or none"),
    ({"topology": {"endpoints": 1}, "outputs": {"log": 3}}, "$.outputs.log: must be \"all\", \"summary\", \"none\" or"),
    ({"topology": {"endpoints": 1}, "outputs": {"log": {"level": "summary", "keep": ["tlps"]}}},
     "$.outputs.log: unknown event category 'tlps' (known: dma, frame, frame_counters, ionic_frame, log, mesh, msi, rdma, state, tlp, vq)"),
    ({"topology": {"endpoints": 1}, "outputs": {"log": {"level": "none", "omit": ["tlp"]}}},
     "$.outputs.log: log categories to keep or omit make no sense with level none"),
    ({"topology": {"endpoints": 1}, "outputs": {"log": {"levels": "all"}}}, "$.outputs.log.levels: unknown key (known: keep, level, omit)"),
    ({"topology": {"endpoints": 1}, "outputs": {"pcap": 1}}, "$.outputs.pcap: must be true or false, not 1"),
    ({"topology": {"endpoints": 1}, "outputs": {"log": {"omit": "tlp"}}}, "$.outputs.log.omit: must be an array of event category names"),
    ({"topology": {"endpoints": 1}, "fidelity": "at"}, "$.fidelity: fidelity 'at' is not tlp or lt"),
    ({"topology": {"endpoints": 1}, "fidelity": 1}, "$.fidelity: must be a string"),
    ({"topology": {"endpoints": 1}, "timing": {"profile": "pcie-bench"}},
     "$.timing.profile: unknown timing profile 'pcie-bench' (known: doca-gen4x16, pcie-bench-e5-2620v3-gen3x8, "
     "pcie-bench-e5-2630v4-gen3x8, pcie-bench-e5-2620v3-gen3x8-cold, pcie-bench-e5-2630v4-gen3x8-remote)"),
    ({"topology": {"endpoints": 1}, "timing": {"profile": 3}}, "$.timing.profile: must be a string"),
    ({"topology": {"endpoints": 1}, "timing": {"link.dllp_share_ppm": 500001}},
     "$.timing.link.dllp_share_ppm: timing parameter 'link.dllp_share_ppm' = 500001 outside 0..500000 ppm"),
])
def test_refusals_name_the_field_and_reason(doc, message):
    text = doc if isinstance(doc, str) else json.dumps(doc)
    with pytest.raises(DocError) as e:
        validate(text)
    assert message in str(e.value)


def test_a_good_document_passes():
    validate(json.dumps({"seed": 3, "topology": {"slots": [{"kind": "test"}, None]},
                         "timing": {"switch.traversal_ps": 150000}, "host": {"cpus": 8}}))
