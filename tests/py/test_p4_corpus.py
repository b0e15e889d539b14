"""The real bmv2 programs of the shared test data's p4-corpus folder: every v1model program loads
with the bmv2 feature set in either port policy (`./dpusim p4 check`), those using what
rocm-ernic's engine does not build are refused by the ernic feature set, those that are not
v1model programs are refused by every policy (as simple_switch refuses them), and the corpus
README's packet expectations hold, with more from bmv2's own tests of the same programs
(targets/simple_switch/tests, targets/simple_switch_grpc/tests), driven through
simple_switch_CLI commands as users drive simple_switch."""
import subprocess

import pytest

import _dpusim
from dpusim import p4
from test_p4_cli import TOOL, read_pcap, write_pcap

# Programs simple_switch itself refuses: they lack the standard_metadata fields it requires
# (PNA's program, and bmv2's loader fixtures with no architecture at all).
NOT_V1MODEL = {
    "targets_pna_nic_tests_testdata_pna-demo-L2-one-table.json",
    "tests_testdata_empty_config.json",
    "tests_testdata_config_options.json",
    "tests_testdata_one_header.json",
    "tests_testdata_one_extern.json",
    "tests_testdata_logging.json",
}

# v1model programs using what the ernic feature set refuses, with the feature it names first
# (the P4 engine guide of rocm-ernic: "checksums and calculations; negative literals in actions;
# and counters, meters, registers and action profiles. Each is refused by name").
NOT_ERNIC = {
    "mininet_simple_router.json": "checksums",
    "targets_simple_router_simple_router.json": "checksums",
    "targets_simple_switch_grpc_tests_testdata_simple_router.json": "checksums",
    "targets_simple_switch_tests_CLI_tests_testdata_ecmp.json": "checksums",
    "tests_testdata_serialize.json": "checksums",
    "targets_simple_switch_grpc_tests_testdata_action_profile.json": "action profiles",
    "targets_simple_switch_grpc_tests_testdata_counter.json": "counters",
    "targets_simple_switch_grpc_tests_testdata_meter.json": "meters",
    "targets_simple_switch_tests_CLI_tests_testdata_indirect_res.json": "counters",
    "tests_testdata_runtime_iface.json": "counters",
}


def corpus(shared_dir):
    return sorted((shared_dir / "p4-corpus").glob("*.json"))


def load_all(shared_dir, policy, features="bmv2"):
    loaded, refused = [], {}
    for path in corpus(shared_dir):
        try:
            p4.Engine.load_file(path, policy, features)
            loaded.append(path.name)
        except p4.LoadError as e:
            refused[path.name] = (e.code, e.message)
    print(f"\ncorpus ({policy}, {features}): {len(loaded)} load, {len(refused)} refused")
    for name, (code, message) in sorted(refused.items()):
        print(f"  {name}: error[{code}]: {message}")
    return loaded, refused


@pytest.mark.parametrize("policy", ["device", "v1model"])
def test_every_v1model_program_of_the_corpus_loads_with_the_bmv2_features(shared_dir, policy):
    loaded, refused = load_all(shared_dir, policy)
    assert set(refused) == NOT_V1MODEL and len(loaded) == 35
    assert all(code == "no_egress_spec" for code, _ in refused.values())
    assert all(m.startswith(("not a v1model program: ", "a PNA program; ")) for _, m in refused.values())


def test_the_ernic_features_refuse_what_rocm_ernic_does_not_build(shared_dir):
    loaded, refused = load_all(shared_dir, "device", "ernic")
    assert len(loaded) == 25
    assert {name: m.split("'")[3] for name, (_, m) in refused.items() if name not in NOT_V1MODEL} == NOT_ERNIC
    assert set(refused) == NOT_V1MODEL | set(NOT_ERNIC)


def test_simple_router_does_not_load_on_ernic_and_loads_on_bmv2(shared_dir):
    # The guide: "simple_router.json, the example bmv2's own format documentation links to,
    # does not load. Its calculations and checksums carry the IPv4 checksum, which is not
    # implemented. Removing them is not enough: it decrements the TTL with add_to_field and the
    # literal -0x1, and a negative literal is refused too."
    path = shared_dir / "p4-corpus" / "targets_simple_router_simple_router.json"
    with pytest.raises(p4.LoadError) as e:
        p4.Engine.load_file(path, "device", "ernic")
    assert e.value.code == "unsupported"
    assert e.value.message == (
        "checksum 'ipv4.hdrChecksum|ipv4_checksum': 'checksums' is not supported yet (the ernic feature set: rocm-ernic's "
        "P4 engine refuses it "
        "by name; the program also uses 'calculations', 'negative literals'; the bmv2 feature set runs them)")
    assert p4.Engine.load_file(path, "device", "bmv2").stats["host_in"] == 0


def test_p4_check_says_which_policies_each_program_passes(shared_dir):
    for path in corpus(shared_dir):
        out = subprocess.run([TOOL, "check", str(path)], capture_output=True, text=True)
        lines = out.stdout.splitlines()
        if path.name in NOT_V1MODEL:
            assert out.returncode == 1 and "error[no_egress_spec]" in out.stderr, path.name
            assert [line.split(":")[0:2] for line in lines] == [["ernic", " refused"], ["bmv2", " refused"]]
            continue
        assert out.returncode == 0, (path.name, out.stderr)
        assert lines[2] == "bmv2: passes"
        assert (lines[1] == "ernic: passes") == (path.name not in NOT_ERNIC), path.name


def test_a_pna_program_says_it_is_one_and_that_the_device_runs_v1model(shared_dir):
    path = shared_dir / "p4-corpus" / "targets_pna_nic_tests_testdata_pna-demo-L2-one-table.json"
    for features in ("ernic", "bmv2"):
        with pytest.raises(p4.LoadError) as e:
            p4.Engine.load_file(path, "device", features)
        assert e.value.code == "no_egress_spec"
        assert e.value.message == (
            "a PNA program; the device runs v1model programs (p4c --target bmv2 --arch v1model): program has no field "
            "standard_metadata.egress_spec (nor a field alias for it), so it cannot say where a packet goes and is "
            "refused at load; program has no parser named 'parser' (simple_switch runs that one; not run: "
            "'main_parser'); program has no deparser named 'deparser' (simple_switch runs that one; not run: "
            "'main_deparser'); program has no pipeline named 'ingress' (simple_switch runs that one; not run: "
            "'main_control'); program has no pipeline named 'egress' (simple_switch runs that one; not run: "
            "'main_control')")


def v1model(shared_dir, name, commands=()):
    e = p4.Engine.load_file(shared_dir / "p4-corpus" / name, "v1model")
    for c in commands:
        e.cli(c)
    return e


def outputs(run):
    return [(o.port, o.data.hex()) for o in run.outputs]


def test_parser_error_expectations(shared_dir):
    e = v1model(shared_dir, "targets_simple_switch_tests_testdata_parser_error.json")
    # NoError; PacketTooShort (h re-validated, then the 2 unparsed bytes); the custom error.
    assert e.process(1, bytes.fromhex("00000000")) == p4.Forwarded(1, bytes.fromhex("00000000"))
    assert e.process(1, bytes.fromhex("0000")) == p4.Forwarded(1, bytes.fromhex("000000010000"))
    assert e.process(1, bytes.fromhex("000000ab")) == p4.Forwarded(1, bytes.fromhex("00000002"))
    assert e.stats["parse_errors"] == 2


def test_truncate_expectation(shared_dir):
    e = v1model(shared_dir, "targets_simple_switch_tests_testdata_truncate.json",
                ["table_set_default t_ingress _nop", "table_add t_ingress _truncate 0x01 => 32 2"])
    frame = b"\x01" + b"\xab" * 127
    assert e.process(1, frame) == p4.Forwarded(2, frame[:32])


def test_recirculate_expectation(shared_dir):
    e = v1model(shared_dir, "targets_simple_switch_tests_testdata_recirc.json")
    assert outputs(e.run(1, bytes.fromhex("00"))) == [(1, "01ab")]


REDIRECT_DEFAULTS = ["table_set_default t_ingress_1 _nop", "table_set_default t_ingress_2 _nop",
                     "table_set_default t_egress _nop", "table_set_default t_exit set_hdr"]


def redirect(shared_dir, *commands):
    return v1model(shared_dir, "targets_simple_switch_tests_testdata_packet_redirect.json", REDIRECT_DEFAULTS + list(commands))


def test_packet_redirect_expectation(shared_dir):
    e = redirect(shared_dir, "table_add t_ingress_1 _set_port 0x01 0x00 => 2")
    assert outputs(e.run(1, bytes.fromhex("01000000"))) == [(2, "0102")]


def test_packet_redirect_multicast_clone_resubmit_recirculate_exit_as_bmv2_tests_them(shared_dir):
    # bmv2's targets/simple_switch/tests/test_packet_redirect.cpp, the same entries.
    e = redirect(shared_dir, "table_add t_ingress_1 _multicast 0x02 0x00 => 1", "mc_mgrp_create 1",
                 "mc_node_create 0 1", "mc_node_create 1 2", "mc_node_associate 1 0", "mc_node_associate 1 1")
    assert outputs(e.run(1, bytes.fromhex("02000000"))) == [(1, "0202"), (2, "0202")]
    e = redirect(shared_dir, "table_add t_ingress_1 _set_port 0x03 0x00 => 2",
                 "table_add t_ingress_2 _clone_i2e 0x03 0&&&0 => 1 1", "mirroring_add 1 3")
    assert outputs(e.run(1, bytes.fromhex("03000000"))) == [(3, "03040000"), (2, "0302")]
    e = redirect(shared_dir, "table_add t_ingress_1 _set_port 0x04 0x00 => 2",
                 "table_add t_egress _clone_e2e 0x04 0&&&0xffffffff 0&&&0xff => 1 1", "mirroring_add 1 3")
    assert outputs(e.run(1, bytes.fromhex("04000000"))) == [(2, "0402"), (3, "0402")]
    e = redirect(shared_dir, "table_add t_ingress_1 _set_port 0x05 0x00 => 2", "table_add t_ingress_1 _set_port 0x05 0x01 => 3",
                 "table_add t_ingress_2 _resubmit 0x05 0&&&0xffffffff => 1")
    assert outputs(e.run(1, bytes.fromhex("05000000"))) == [(3, "0502")]
    e = redirect(shared_dir, "table_add t_ingress_1 _set_port 0x06 0x00 => 2", "table_add t_ingress_1 _set_port 0x06 0x01 => 3",
                 "table_add t_egress _recirculate 0x06 0&&&0xffffffff 0&&&0xff => 1")
    assert outputs(e.run(1, bytes.fromhex("060000000000"))) == [(3, "0602")]
    e = redirect(shared_dir, "table_add t_ingress_1 _exit 0x07 0x00 =>")
    assert [o.port for o in e.run(1, bytes.fromhex("07000000")).outputs] == [0]


def test_clone_session_and_multicast_group_through_the_grpc_programs(shared_dir):
    # clone.p4: clone I2E to session h.f1, the original back where it came from; egress
    # writes egress_rid into f1.
    e = v1model(shared_dir, "targets_simple_switch_grpc_tests_testdata_clone.json", ["mirroring_add 5 9"])
    assert outputs(e.run(2, bytes.fromhex("0005" "aa"))) == [(9, "0000aa"), (2, "0000aa")]
    # multicast.p4: mcast_grp = h.f1; each copy carries its node's rid.
    e = v1model(shared_dir, "targets_simple_switch_grpc_tests_testdata_multicast.json",
                ["mc_mgrp_create 7", "mc_node_create 21 1 3", "mc_node_create 22 2", "mc_node_associate 7 0", "mc_node_associate 7 1"])
    assert outputs(e.run(0, bytes.fromhex("0007"))) == [(1, "0015"), (3, "0015"), (2, "0016")]


def test_direct_counter_of_the_grpc_counter_program(shared_dir):
    e = v1model(shared_dir, "targets_simple_switch_grpc_tests_testdata_counter.json", ["table_add t_redirect port_redirect 64 =>"])
    for _ in range(3):
        e.run(4, bytes(64))
    e.run(4, bytes(65))  # another length: a miss, nothing counted
    assert e.cli("counter_read cntr 0").endswith("cntr[0]= (192 bytes, 3 packets)\n")


def test_selector_of_the_grpc_action_profile_program(shared_dir):
    e = v1model(shared_dir, "targets_simple_switch_grpc_tests_testdata_action_profile.json",
                ["act_prof_create_member ActProfWS send 1", "act_prof_create_member ActProfWS send 2",
                 "act_prof_create_member ActProfWS send 3", "act_prof_create_group ActProfWS",
                 "act_prof_add_member_to_group ActProfWS 0 0", "act_prof_add_member_to_group ActProfWS 1 0",
                 "act_prof_add_member_to_group ActProfWS 2 0", "table_indirect_add_with_group IndirectWS 0x09 => 0"])
    ports = [e.run(0, bytes([9]) + i.to_bytes(4, "big")).outputs[0].port for i in range(64)]
    assert set(ports) == {1, 2, 3}  # a 3-member group, chosen by crc16 of the entropy
    assert ports == [e.run(0, bytes([9]) + i.to_bytes(4, "big")).outputs[0].port for i in range(64)]


def test_digest_of_the_grpc_digest_program(shared_dir):
    e = v1model(shared_dir, "targets_simple_switch_grpc_tests_testdata_digest.json")
    frame = bytes.fromhex("ffffffffffff" "0a0b0c0d0e0f" "0800")
    r = e.run(3, frame)
    assert outputs(r) == [(3, frame.hex())]
    assert [(d.list, d.fields) for d in r.digests] == [("L2_digest", (("scalars.tmp", "0xa0b0c0d0e0f"), ("scalars.tmp_0", "0x3")))]
    # A known source takes the table's hit (NoAction): no digest.
    e.cli("table_add ingress.smac NoAction 0x0a0b0c0d0e0f =>")
    assert e.run(3, frame).digests == []


def test_parse_value_set_decides_a_transition(shared_dir):
    # parse_vset.p4: an EtherType in pv1 goes on to extract my_header; a frame with one byte
    # after Ethernet then ends the parser short, which shows the transition was taken.
    e = v1model(shared_dir, "tests_testdata_parse_vset.json")
    frame = bytes.fromhex("000000000001" "000000000002" "9999" "ab")
    e.run(0, frame)
    assert e.stats["parse_errors"] == 0
    e.cli("pvs_add pv1 0x9999")
    e.run(0, frame)
    assert e.stats["parse_errors"] == 1
    e.cli("pvs_remove pv1 0x9999")
    e.run(0, frame)
    assert e.stats["parse_errors"] == 1
    # A value set over a struct of two fields takes values of their 19 bits together.
    e = v1model(shared_dir, "tests_testdata_pvs_struct_2.json", [f"pvs_add MyParser.pvs {0x1234 << 3 | 2:#x}"])
    with pytest.raises(p4.CliError, match="wider than its 19 bits"):
        e.cli("pvs_add MyParser.pvs 0x80000")


def test_queueing_metadata_of_a_single_queue_switch(shared_dir):
    # bmv2's test_queueing.cpp: one packet through an idle switch sees empty queues.
    e = v1model(shared_dir, "targets_simple_switch_tests_testdata_queueing.json",
                ["table_set_default t_ingress set_port 2", "table_set_default t_egress copy_queueing_data"])
    out = e.run(1, bytes(256), time_ns=7_000_000).outputs
    assert [(o.port, len(o.data)) for o in out] == [(2, 256 + 17)]  # hdr1 and the 17-byte queueing header
    q = out[0].data[2:19]
    # enq_timestamp (48 bits) is the engine clock in microseconds; depths, delta and qid 0.
    assert (int.from_bytes(q[0:6], "big"), int.from_bytes(q[6:9], "big"), int.from_bytes(q[9:13], "big"),
            int.from_bytes(q[13:16], "big"), q[16]) == (7000, 0, 0, 0, 0)


@pytest.mark.parametrize("name,frame", [
    ("tests_testdata_unions_e2e_options_count.json", "020a0b66ab"),
    ("tests_testdata_unions_e2e_options_bos.json", "0b00770a01"),
])
def test_union_parse_then_deparse_gives_back_the_same_bytes(shared_dir, name, frame):
    e = v1model(shared_dir, name)
    assert e.process(0, bytes.fromhex(frame)) == p4.Forwarded(0, bytes.fromhex(frame))


def udp(dst, ttl=64):
    import struct
    payload = struct.pack("!HHHH", 1234, 80, 18, 0) + bytes(10)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0, ttl, 17, 0, bytes([10, 0, 1, 10]), bytes(dst)))
    s = sum(ip[i] << 8 | ip[i + 1] for i in range(0, 20, 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    ip[10:12] = (~s & 0xFFFF).to_bytes(2, "big")
    return bytes.fromhex("000000000000" "000102030405" "0800") + bytes(ip) + payload


@pytest.mark.parametrize("program", ["targets_simple_switch_grpc_tests_testdata_simple_router.json",
                                     "targets_simple_router_simple_router.json", "mininet_simple_router.json"])
def test_simple_router_with_its_commands_file_through_p4_switch(shared_dir, tmp_path, program):
    corpus_dir = shared_dir / "p4-corpus"
    routed, unrouted, other = udp([10, 0, 0, 10]), udp([10, 9, 9, 9]), bytes.fromhex("000000000000" "000102030405" "86dd") + bytes(46)
    write_pcap(tmp_path / "veth1_in.pcap", [(1_000_000_000, routed), (1_000_001_000, unrouted), (1_000_002_000, other)])
    r = subprocess.run([str(TOOL), "switch", str(corpus_dir / program), "-i", "1@veth1", "-i", "2@veth2", "--use-files", "0",
                        "--commands", str(corpus_dir / "targets_simple_router_commands.txt")],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = read_pcap(tmp_path / "veth1_out.pcap")
    assert read_pcap(tmp_path / "veth2_out.pcap") == []
    # Next hop 10.0.0.10 on port 1: its MAC, port 1's MAC, TTL 63, checksum 0x65b3 -> 0x66b3.
    expected = bytearray(routed)
    expected[0:12] = bytes.fromhex("000400000000" "00aabb000000")
    expected[22] = 63
    assert routed[24:26].hex() == "65b3"
    expected[24:26] = bytes.fromhex("66b3")
    assert out == [(1_000_000_000, bytes(expected))]
    assert "3 frames in, 1 out, 2 dropped" in r.stderr
