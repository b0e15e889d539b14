"""./dpusim p4 check | run | stf | switch: exit statuses, messages, pcap in and out."""
import json
import pathlib
import struct
import subprocess

import pytest

import _dpusim
from p4_frames import ethernet

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "p4"
TOOL = pathlib.Path(_dpusim.__file__).resolve().parents[1] / "p4" / "tool" / "dpusim-p4"


def tool(*args):
    return subprocess.run([str(TOOL), *map(str, args)], capture_output=True, text=True, timeout=60)


def write_pcap(path, records, nanosecond=False, big_endian=False):
    """records: (timestamp in ns, frame)."""
    e = ">" if big_endian else "<"
    magic = 0xA1B23C4D if nanosecond else 0xA1B2C3D4
    out = struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, 65535, 1)
    for ts, frame in records:
        frac = ts % 1_000_000_000 if nanosecond else (ts % 1_000_000_000) // 1000
        out += struct.pack(e + "IIII", ts // 1_000_000_000, frac, len(frame), len(frame)) + frame
    path.write_bytes(out)


def read_pcap(path):
    data = path.read_bytes()
    magic = struct.unpack("<I", data[:4])[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D)
    ns = magic == 0xA1B23C4D
    assert struct.unpack("<HHiIII", data[4:24])[-1] == 1  # Ethernet
    out, pos = [], 24
    while pos < len(data):
        sec, frac, incl, orig = struct.unpack("<IIII", data[pos:pos + 16])
        assert incl == orig
        out.append((sec * 1_000_000_000 + (frac if ns else frac * 1000), data[pos + 16:pos + 16 + incl]))
        pos += 16 + incl
    return out


def with_patch(tmp_path, name, **extra):
    doc = json.loads((DATA / name).read_text())
    doc.update(extra)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_check_prints_the_summary_and_which_policies_pass():
    r = tool("check", DATA / "features.json")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 3 and lines[0].startswith("features.p4: 4 headers")
    assert lines[1:] == ["ernic: passes", "bmv2: passes"]
    assert r.stderr == ""


ERNIC_OPS = ("checksum 'cksum_verify': 'checksums' is not supported yet (the ernic feature set: rocm-ernic's P4 engine "
             "refuses it by name; the program also uses 'calculations', 'counters', 'meters', 'registers', 'action "
             "profiles'; the bmv2 feature set runs them)")


def test_check_says_which_policies_a_program_passes():
    # v1model_ops.json uses what rocm-ernic's engine refuses: it passes bmv2 only, exit 0.
    ops = DATA / "v1model_ops.json"
    r = tool("check", ops)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("v1model_ops.p4: ")
    assert lines[1:] == ["ernic: refused: error[unsupported]: " + ERNIC_OPS, "bmv2: passes"]
    # --policy checks the one named: refused, exit 1 with the refusal on stderr.
    r = tool("check", ops, "--policy", "ernic")
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "ernic: refused: error[unsupported]: " + ERNIC_OPS + "\n", f"{ops}: error[unsupported]: {ERNIC_OPS}\n")
    r = tool("check", "--policy", "bmv2", ops)
    assert r.returncode == 0 and r.stdout.splitlines()[1:] == ["bmv2: passes"] and r.stderr == ""
    r = tool("check", DATA / "loopback.json", "--policy", "ernic")
    assert r.returncode == 0 and r.stdout.splitlines()[1:] == ["ernic: passes"]


def test_check_exits_1_when_no_policy_passes(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"bad": 1}')
    r = tool("check", bad)
    assert r.returncode == 1
    refusal = ("error[no_egress_spec]: not a v1model program: program has no field standard_metadata.egress_spec (nor a "
               "field alias for it), so it cannot say where a packet goes and is refused at load; program has no parser "
               "named 'parser' (simple_switch runs that one); program has no deparser named 'deparser' (simple_switch "
               "runs that one); program has no pipeline named 'ingress' (simple_switch runs that one); program has no "
               "pipeline named 'egress' (simple_switch runs that one)")
    assert r.stdout == f"ernic: refused: {refusal}\nbmv2: refused: {refusal}\n"
    assert r.stderr == f"{bad}: {refusal}\n"


def test_check_refusal_names_the_feature(tmp_path):
    prog = with_patch(tmp_path, "minimal_forward.json", calculations=[{"name": "h", "id": 0, "algo": "toeplitz", "input": []}])
    r = tool("check", prog)
    assert r.returncode == 1
    refusal = "error[unsupported]: calculation 'h': 'hash algorithm toeplitz' is not supported yet"
    assert r.stderr == f"{prog}: {refusal}\n"
    assert r.stdout == f"ernic: refused: {refusal}\nbmv2: refused: {refusal}\n"


def test_a_bad_policy_is_a_usage_error():
    for args in (("check", DATA / "loopback.json", "--policy", "v1model"), ("run", DATA / "loopback.json", "--policy",
                                                                             "v1model", "--out", "/nonexistent")):
        r = tool(*args)
        assert r.returncode == 2
        assert r.stderr == (f"dpusim p4 {args[0]}: --policy 'v1model' is not ernic (what rocm-ernic's P4 engine runs) "
                            "or bmv2 (everything the engine builds)\n")
    assert tool("check", DATA / "loopback.json", "--policy").returncode == 2


def test_run_loads_as_the_device_does_unless_policy_says_bmv2(tmp_path):
    ops = DATA / "v1model_ops.json"
    r = tool("run", ops, "--out", tmp_path / "o")
    assert r.returncode == 1 and r.stderr == f"{ops}: error[unsupported]: {ERNIC_OPS}\n"
    r = tool("run", ops, "--policy", "bmv2", "--out", tmp_path / "o")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("P4 stats: host_in=0 ")


@pytest.mark.parametrize("args", [(), ("check",), ("check", "a", "b"), ("frobnicate",), ("run", "--out")])
def test_usage_errors_exit_2(args):
    assert tool(*args).returncode == 2


def test_unreadable_inputs_exit_2(tmp_path):
    for prog in (tmp_path / "missing.json", tmp_path):
        r = tool("check", prog)
        assert r.returncode == 2 and "error[io]" in r.stderr
    assert tool("stf", DATA / "loopback.json", tmp_path).returncode == 2
    assert tool("run", DATA / "loopback.json", "--in1", tmp_path / "missing.pcap", "--out", tmp_path / "o").returncode == 2


def test_run_merges_inputs_by_timestamp_port_0_first_on_ties(tmp_path):
    dst = "0a:00:00:00:00:01"
    updates = [{"type": "INSERT", "table": "ingress.fwd", "match": [{"field": "hdr.ethernet.dstAddr", "value": "0x0a0000000001"}],
                "action": "ingress.forward", "params": {"port": "1"}}]
    (tmp_path / "updates.json").write_text(json.dumps(updates))
    f = [ethernet(dst=dst) + bytes([i]) * 10 for i in range(5)]
    write_pcap(tmp_path / "in0.pcap", [(1_000_001_000, f[0]), (3_000_000_000, f[1])])
    # The uplink capture is big-endian with nanosecond timestamps.
    write_pcap(tmp_path / "in1.pcap", [(1_000_001_000, f[2]), (2_000_000_007, f[3]), (5_000_000_000, ethernet() + b"x")],
               nanosecond=True, big_endian=True)
    r = tool("run", DATA / "minimal_forward.json", "--entries", tmp_path / "updates.json",
             "--in0", tmp_path / "in0.pcap", "--in1", tmp_path / "in1.pcap", "--out", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == ("P4 stats: host_in=2 host_out=0 uplink_in=3 uplink_out=4 dropped=1 too_big=0 "
                                         "parse_errors=0 to_guest=0 to_net=4 to_upstream=0 egress_errors=0 faults=0")
    assert read_pcap(tmp_path / "out" / "port0.pcap") == []
    assert read_pcap(tmp_path / "out" / "port1.pcap") == [
        (1_000_001_000, f[0]), (1_000_001_000, f[2]), (2_000_000_007, f[3]), (3_000_000_000, f[1])]


def test_run_without_inputs_writes_empty_captures(tmp_path):
    r = tool("run", DATA / "loopback.json", "--out", tmp_path / "o")
    assert r.returncode == 0, r.stderr
    assert read_pcap(tmp_path / "o" / "port0.pcap") == [] and read_pcap(tmp_path / "o" / "port1.pcap") == []
    assert r.stdout.startswith("P4 stats: host_in=0 ")


def test_run_refuses_pcapng_and_bad_updates(tmp_path):
    (tmp_path / "ng.pcap").write_bytes(struct.pack("<IIIHHq", 0x0A0D0D0A, 28, 0x1A2B3C4D, 1, 0, -1) + struct.pack("<I", 28))
    r = tool("run", DATA / "loopback.json", "--in0", tmp_path / "ng.pcap", "--out", tmp_path / "o")
    assert r.returncode == 2 and "'pcapng' is not supported yet" in r.stderr
    (tmp_path / "u.json").write_text(json.dumps([{"type": "INSERT", "table": "ingress.fwd", "match": [
        {"field": "hdr.ethernet.dstAddr", "value": "0x1000000000000"}], "action": "ingress.forward", "params": {"port": "1"}}]))
    r = tool("run", DATA / "minimal_forward.json", "--entries", tmp_path / "u.json", "--out", tmp_path / "o")
    assert r.returncode == 1
    assert "update 0 (INSERT): error[value_width]: table 'ingress.fwd' key 'hdr.ethernet.dstAddr': value 0x1000000000000 is wider than the 48-bit field" in r.stderr


def test_run_refused_program_exits_1(tmp_path):
    prog = with_patch(tmp_path, "loopback.json", __meta__={"version": [2, 99]})
    r = tool("run", prog, "--out", tmp_path / "o")
    assert r.returncode == 1 and "error[version]" in r.stderr


def test_stf_prints_pass_or_the_first_mismatch(tmp_path):
    (tmp_path / "ok.stf").write_text("packet 3 0102030405\nexpect 3 01 02 ** 04 05 $\n")
    r = tool("stf", DATA / "loopback.json", tmp_path / "ok.stf")
    assert r.returncode == 0 and ": pass (1 packets, 1 expects" in r.stdout
    (tmp_path / "bad.stf").write_text("packet 3 0102030405\nexpect 3 0102030406\n")
    r = tool("stf", DATA / "loopback.json", tmp_path / "bad.stf")
    assert r.returncode == 1
    assert "FAIL: packet 0 on port 3 differs at nibble 9: expected 0102030406, received 0102030405" in r.stdout


OPS = DATA / "v1model_ops.json"


def tag(op, data=0):
    return bytes.fromhex("020000000002" "020000000001" "88b5") + bytes([op, 0, 0, 0]) + data.to_bytes(4, "big") + bytes(4)


def switch(cwd, *args):
    return subprocess.run([str(TOOL), "switch", str(OPS), *map(str, args)], capture_output=True, text=True, timeout=60, cwd=cwd)


def test_switch_runs_files_as_simple_switch_with_commands_before_and_after(tmp_path):
    (tmp_path / "cmds.txt").write_text("table_add ingress.ops ingress.set_port 1 => 2\n"
                                       "table_add ingress.ops ingress.count_it 2 => 4\n"
                                       "table_add ingress.ops ingress.digest_it 3 =>\n")
    (tmp_path / "after.txt").write_text("counter_read ingress.ctr 4\n")
    # Two inputs merged by timestamp; port 2 has no input file (an interface with nothing in).
    write_pcap(tmp_path / "a_in.pcap", [(1_000, tag(1, 1)), (3_000, tag(2)), (5_000, tag(1, 3))])
    write_pcap(tmp_path / "b_in.pcap", [(2_000, tag(1, 2)), (4_000, tag(3))], nanosecond=True)
    r = switch(tmp_path, "-i", "0@a", "-i", "1@b", "-i", "2@c", "--use-files", "0", "--commands", "cmds.txt", "--after", "after.txt")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("digest learn_src: ethernet.srcAddr=0x20000000001 standard_metadata.ingress_port=0x1\n"
                        "ingress.ctr[4]= (26 bytes, 1 packets)\n")
    assert r.stderr == "dpusim p4 switch: 5 frames in, 5 out, 0 dropped, 0 to ports with no interface, 0 parse errors, 0 faults\n"
    # Port 2 gets op 1 in input order; ops 2 and 3 go to port 1; outputs keep their input's
    # timestamps, at nanosecond resolution because an input had it.
    assert [(ts, f[18:22].hex()) for ts, f in read_pcap(tmp_path / "c_out.pcap")] == [(1_000, "00000001"), (2_000, "00000002"),
                                                                                    (5_000, "00000003")]
    assert [ts for ts, _ in read_pcap(tmp_path / "b_out.pcap")] == [3_000, 4_000]
    assert read_pcap(tmp_path / "a_out.pcap") == []


def test_switch_streams_each_file_in_its_order_and_stops_at_a_cut_record(tmp_path):
    (tmp_path / "cmds.txt").write_text("table_add ingress.ops ingress.set_port 1 => 2\n")
    # b's timestamps go back: each file keeps its own order (a merge, as simple_switch's).
    write_pcap(tmp_path / "a_in.pcap", [(1_000, tag(1, 1)), (5_000, tag(1, 4))])
    write_pcap(tmp_path / "b_in.pcap", [(3_000, tag(1, 2)), (2_000, tag(1, 3)), (6_000, tag(1, 5))])
    r = switch(tmp_path, "-i", "0@a", "-i", "1@b", "-i", "2@c", "--use-files", "--commands", "cmds.txt")
    assert r.returncode == 0, r.stderr
    assert [(ts, f[18:22].hex()) for ts, f in read_pcap(tmp_path / "c_out.pcap")] == [
        (1_000, "00000001"), (3_000, "00000002"), (2_000, "00000003"), (5_000, "00000004"), (6_000, "00000005")]
    # b cut inside its third frame (record 2, at byte 24 + 2 x 42): the run stops where the
    # merge reads it (a's 5_000 waits on it); the frames before ran and were written whole.
    data = (tmp_path / "b_in.pcap").read_bytes()
    (tmp_path / "b_in.pcap").write_bytes(data[:-5])
    r = switch(tmp_path, "-i", "0@a", "-i", "1@b", "-i", "2@c", "--use-files", "--commands", "cmds.txt")
    assert r.returncode == 2
    assert r.stderr == "b_in.pcap record 2 at byte 108: the file ends inside the frame (21 of its 26 bytes)\n"
    assert [f[18:22].hex() for _, f in read_pcap(tmp_path / "c_out.pcap")] == ["00000001", "00000002", "00000003"]


def test_switch_refuses_a_command_it_lacks_by_name_and_line(tmp_path):
    (tmp_path / "cmds.txt").write_text("table_set_default ingress.ops ingress.drop\n\nset_queue_depth 64\n")
    r = switch(tmp_path, "-i", "0@a", "--use-files", "--commands", "cmds.txt")
    assert r.returncode == 1
    assert r.stderr == "cmds.txt: line 3: set_queue_depth: command 'set_queue_depth' is not supported\n"
    (tmp_path / "cmds.txt").write_text("table_add ingress.ops ingress.set_port 1 => 600\n")
    r = switch(tmp_path, "-i", "0@a", "--use-files", "--commands", "cmds.txt")
    assert r.returncode == 1 and "line 1: table_add: error[params]:" in r.stderr


@pytest.mark.parametrize("args,why", [
    (("-i", "0@a"), "only file mode is built: give --use-files"),
    (("-i", "511@a", "--use-files"), "is not PORT@NAME with a port in 0..510"),
    (("-i", "0@a", "-i", "0@b", "--use-files"), "repeats a port or a name"),
    (("--use-files", "0"), "no interface"),
    (("-i", "0@a", "--use-files", "--frobnicate"), "unexpected argument '--frobnicate'"),
])
def test_switch_usage_errors_exit_2(tmp_path, args, why):
    r = switch(tmp_path, *args)
    assert r.returncode == 2 and why in r.stderr
