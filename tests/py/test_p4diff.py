"""dpusim.p4diff's own pieces (the differential run needs a simple_switch, which is not here)."""
import json
import os

import pytest

from dpusim import p4diff

pytestmark = pytest.mark.python_only  # no C++ of the simulator runs here

DATA = os.path.join(os.path.dirname(__file__), "..", "data", "p4")


def test_frames_are_the_same_for_a_seed_and_differ_between_seeds(tmp_path):
    prog = tmp_path / "prog.json"
    prog.write_text("{}")
    (tmp_path / "prog.stf").write_text("packet 0 0011 2233 4455 6677 8899 aabb ccdd eeff 0102\nexpect 0 00\n")
    a, b = p4diff.frames_for(str(prog), 40, 1), p4diff.frames_for(str(prog), 40, 1)
    assert a == b and len(a) == 40
    assert a != p4diff.frames_for(str(prog), 40, 2)
    stf = bytes.fromhex("00112233445566778899aabbccddeeff0102")
    for f in a[::2]:  # the STF packet with 1 to 4 bytes changed, never its Ethernet addresses
        assert len(f) == len(stf) and f[:12] == stf[:12] and 1 <= sum(x != y for x, y in zip(f, stf)) <= 4
    assert all(14 <= len(f) <= 300 for f in a[1::2])


def test_a_capture_reads_back_and_an_empty_file_has_no_records(tmp_path):
    p4diff.write_pcap(tmp_path / "a.pcap", [b"\x01\x02", b"", b"\x03" * 70])
    assert p4diff.read_pcap(tmp_path / "a.pcap") == [b"\x01\x02", b"", b"\x03" * 70]
    (tmp_path / "empty.pcap").write_bytes(b"")
    assert p4diff.read_pcap(tmp_path / "empty.pcap") == []
    data = (tmp_path / "a.pcap").read_bytes()
    (tmp_path / "cut.pcap").write_bytes(data[:-5])  # the last record cut: the ones before it
    assert p4diff.read_pcap(tmp_path / "cut.pcap") == [b"\x01\x02", b""]


def test_time_and_randomness_are_found_where_used_not_where_declared(tmp_path):
    plain = os.path.join(DATA, "minimal_forward.json")
    assert "ingress_global_timestamp" in open(plain).read()  # declared by every v1model program
    assert not p4diff.reads_time(plain)
    doc = json.load(open(plain))
    doc["actions"][0]["primitives"].append(
        {"op": "assign", "parameters": [{"type": "field", "value": ["scalars", "x"]},
                                        {"type": "field", "value": ["standard_metadata", "ingress_global_timestamp"]}]})
    used = tmp_path / "used.json"
    used.write_text(json.dumps(doc))
    assert p4diff.reads_time(str(used))


def test_a_register_both_pipelines_touch_is_found(tmp_path):
    def action(i, reg):
        return {"id": i, "name": f"a{i}", "primitives": [
            {"op": "register_write", "parameters": [{"type": "register_array", "value": reg},
                                                    {"type": "hexstr", "value": "0x0"},
                                                    {"type": "hexstr", "value": "0x1"}]}]}
    doc = {"actions": [action(0, "r"), action(1, "r"), action(2, "q")],
           "pipelines": [{"name": "ingress", "tables": [{"action_ids": [0, 2]}]},
                         {"name": "egress", "tables": [{"action_ids": [1]}]}]}
    prog = tmp_path / "p.json"
    prog.write_text(json.dumps(doc))
    assert p4diff.shared_state(str(prog)) == ["r"]
    doc["pipelines"][1]["tables"][0]["action_ids"] = [2]
    prog.write_text(json.dumps(doc))
    assert p4diff.shared_state(str(prog)) == ["q"]


@pytest.mark.parametrize("args, message", [
    (["--ss", "/bin/true", "--frames", "61"], "--frames 61: 1 to 60"),
    (["--ss", "/nonexistent/simple_switch"], "--ss /nonexistent/simple_switch: not an executable file"),
    (["--ss", "/bin/true", "--programs", "/nonexistent"], "--programs /nonexistent: not a folder"),
])
def test_bad_arguments_are_named(args, message, capsys):
    with pytest.raises(SystemExit) as e:
        p4diff.main(args)
    assert e.value.code == 2
    assert message in capsys.readouterr().err
