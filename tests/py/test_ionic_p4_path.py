"""The P4 engine in the ionic NIC's datapath: the transmit filter chain (the in-band control
endpoint first), the port model (an unassigned egress_spec forwards to the other port, a port
the device does not have is a counted drop, no peer on the uplink counts in egress_errors), the
stats line at the end of the run, and the platform document's refusals of the options."""
import json
import os
import subprocess

from dpusim.drivers.ionic_p4 import IonicP4
from dpusim.p4 import Engine, LoadError
from dpusim.run import run
from dpusim.testing import run_ok
from dpusim.units import us
from ionic_util import PEER_MAC, ROOT, bring_up, frame, fwd, ionic_platform, program, stats_lines

INBAND = bytes.fromhex("02000000fe01")


def test_the_inband_endpoint_claims_its_frames_before_the_pipeline():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        await nic.send(frame(INBAND, nic.mac, 80))     # claimed: never reaches the pipeline
        mine = frame(nic.mac, PEER_MAC, 90)
        await nic.send(mine)                           # declined: loopback.json returns it
        (_, back), = await nic.recv(1)
        await sim.sleep(us(50))
        return back == mine, len(nic.rx_frames)

    slot = {"p4-program": program("loopback.json"), "inband-control-mac": "02:00:00:00:fe:01"}
    res = run_ok(scenario, ionic_platform(slot, wires=[("ep0", "python")]))
    assert res.result == (True, 0)
    assert [(e["len"], e["dst"]) for e in res.events("inband_frame", path="ep0")] == [(80, "02:00:00:00:fe:01")]
    assert stats_lines(res) == ["rocm-ernic: P4 stats: host_in=1 host_out=1 uplink_in=0 uplink_out=0 dropped=0 "
                                "too_big=0 parse_errors=0 to_guest=1 to_net=0 to_upstream=0 egress_errors=0"]
    assert res.events("frame", path="wire0") == []


def unassigned_egress(slot):
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        out_frame = frame(PEER_MAC, nic.mac, 70)
        await nic.send(out_frame)
        wire = await sim.net.recv(0, timeout_ps=us(100))
        in_frame = frame(nic.mac, PEER_MAC, 75)
        sim.net.send(0, in_frame)
        (_, got), = await nic.recv(1)
        return wire.data == out_frame, got == in_frame

    res = run_ok(scenario, ionic_platform(slot, wires=[("ep0", "python")]))
    assert res.result == (True, True)
    assert [(e["in_port"], e["egress_port"]) for e in res.events("p4_verdict", path="ep0")] == [(0, 1), (1, 0)]
    return stats_lines(res)


def test_an_unassigned_egress_spec_forwards_to_the_other_port():
    # fp8_policy.json is an RDMA program: on the Ethernet path it never assigns egress_spec.
    line = ["rocm-ernic: P4 stats: host_in=1 host_out=1 uplink_in=1 uplink_out=1 dropped=0 too_big=0 "
            "parse_errors=0 to_guest=1 to_net=1 to_upstream=0 egress_errors=0"]
    assert unassigned_egress({"p4-program": program("fp8_policy.json")}) == line
    assert unassigned_egress({"p4": True}) == line     # no program: the same rule


def test_no_uplink_peer_counts_egress_errors_the_guides_line():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        for n in range(3):
            await nic.send(frame(PEER_MAC, nic.mac, 64, n))
        await sim.sleep(us(50))

    res = run_ok(scenario, ionic_platform({"p4-program": program("fp8_policy.json")}))
    assert stats_lines(res) == ["rocm-ernic: P4 stats: host_in=3 host_out=0 uplink_in=0 uplink_out=3 dropped=0 "
                                "too_big=0 parse_errors=0 to_guest=0 to_net=0 to_upstream=0 egress_errors=3"]
    assert [e["dropped"] for e in res.events("p4_verdict", path="ep0")] == ["egress_error"] * 3


def test_a_port_the_device_lacks_is_a_counted_drop_and_wire_frames_are_accounted():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        p4 = IonicP4(nic)
        await p4.update([fwd("INSERT", 5)])
        await nic.send(frame(PEER_MAC, nic.mac, 64))          # egress_spec 5: no such port
        sim.net.send(0, frame(nic.mac, PEER_MAC, 64))         # from the wire, no entry: dropped
        await sim.sleep(us(50))
        return await p4.counters()

    slot = {"p4-program": program("minimal_forward.json"), "p4-guest-scope": "write"}
    res = run_ok(scenario, ionic_platform(slot, wires=[("ep0", "python")]))
    c = res.result
    assert (c["host_in"], c["uplink_in"], c["dropped"], c["to_net"], c["to_guest"]) == (1, 1, 2, 0, 0)
    assert sorted(e["dropped"] for e in res.events("p4_verdict", path="ep0")) == ["ingress_drop", "no_such_port"]
    (ledger,) = res.events("frame_ledger")
    assert (ledger["sent"], ledger["dropped"], ledger["drops"]) == (1, 1, "ingress_drop=1")


def doc_error(slot):
    async def scenario(sim):
        pass
    return run(scenario, ionic_platform(slot)).doc_error


def test_slot_options_are_refused_by_name(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert doc_error({"p4-program": str(bad)}) == (
        f"$.topology.slots[0].p4-program: {bad}: error[json_syntax]: " + doc_error_message(bad))
    assert doc_error({"p4-program": "nowhere/x.json"}).startswith(
        "$.topology.slots[0].p4-program: nowhere/x.json: error[io]: cannot open (looked in: ")
    assert doc_error({"p4": False, "p4-guest-scope": "read"}) == (
        "$.topology.slots[0].p4-guest-scope: p4-guest-scope implies p4, but p4 is false")
    assert doc_error({"p4-guest-scope": "admin"}) == (
        "$.topology.slots[0].p4-guest-scope: 'admin' is not none, read, write or load")
    assert doc_error({"mac": "02:00:00:00:00"}) == (
        "$.topology.slots[0].mac: '02:00:00:00:00' is not a MAC address xx:xx:xx:xx:xx:xx")
    assert doc_error({"p4": "yes"}) == "$.topology.slots[0].p4: must be true or false, not \"yes\""
    assert doc_error({"speed": 5}).startswith("$.topology.slots[0].speed: unknown key (known: ")
    assert doc_error({"fp8-chunk-bytes": 12}) == (
        "$.topology.slots[0].fp8-chunk-bytes: 12 is not a multiple of 8 bytes (whole elements of every format)")
    assert doc_error({"fp8-chunk-bytes": 0}).startswith("$.topology.slots[0].fp8-chunk-bytes: ")


def doc_error_message(path):
    """What the engine's loader says of the file."""
    try:
        Engine.load_file(str(path))
    except LoadError as e:
        return e.message
    raise AssertionError("the engine loaded a broken file")


def test_run_exits_2_naming_the_slot_and_the_loader_message(tmp_path):
    # A relative p4-program resolves against the scenario's folder first.
    (tmp_path / "prog.json").write_text(json.dumps({"header_types": 3}))
    scen = tmp_path / "s.py"
    scen.write_text('PLATFORM = {"topology": {"slots": [{"kind": "ionic", "p4-program": "prog.json"}]}}\n'
                    "async def scenario(sim):\n    pass\n")
    r = subprocess.run([os.path.join(ROOT, "dpusim"), "run", str(scen), "--out", str(tmp_path / "out")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 2
    assert "$.topology.slots[0].p4-program: prog.json: error[schema]: " in r.stderr


# The feature policy of the device ("p4-features", docs/ionic.md). The P4 engine guide of
# rocm-ernic: "A program the engine will not run stops the server starting, and says which
# feature it used. A bad program is a startup failure, never a silently inert pipeline."
ERNIC_OPS = ("checksum 'cksum_verify': 'checksums' is not supported yet (the ernic feature set: rocm-ernic's P4 engine "
             "refuses it by name; the program also uses 'calculations', 'counters', 'meters', 'registers', 'action "
             "profiles'; the bmv2 feature set runs them)")
NOT_V1MODEL = ("not a v1model program: program has no field standard_metadata.egress_spec (nor a field alias for it), "
               "so it cannot say where a packet goes and is refused at load; program has no parser named 'parser' "
               "(simple_switch runs that one); program has no deparser named 'deparser' (simple_switch runs that one); "
               "program has no pipeline named 'ingress' (simple_switch runs that one); program has no pipeline named "
               "'egress' (simple_switch runs that one)")


def test_the_slot_refuses_what_rocm_ernic_refuses_by_default(tmp_path):
    ops = program("v1model_ops.json")
    assert doc_error({"p4-program": ops}) == f"$.topology.slots[0].p4-program: {ops}: error[unsupported]: {ERNIC_OPS}"
    assert doc_error({"p4-program": ops, "p4-features": "ernic"}) == doc_error({"p4-program": ops})
    bad = tmp_path / "bad.json"
    bad.write_text('{"bad": 1}')
    for features in ("ernic", "bmv2"):     # not a P4 program at all: no policy runs it
        assert doc_error({"p4-program": str(bad), "p4-features": features}) == (
            f"$.topology.slots[0].p4-program: {bad}: error[no_egress_spec]: {NOT_V1MODEL}")
    assert doc_error({"p4-features": "simple_switch"}) == (
        "$.topology.slots[0].p4-features: 'simple_switch' is not ernic (what rocm-ernic's P4 engine runs, the default) "
        "or bmv2 (everything the engine builds)")
    assert doc_error({"p4": False, "p4-features": "bmv2"}) == (
        "$.topology.slots[0].p4-features: p4-features implies p4, but p4 is false")


def test_run_exits_2_naming_the_file_and_the_feature(tmp_path):
    scen = tmp_path / "s.py"
    scen.write_text('PLATFORM = {"topology": {"slots": [{"kind": "ionic", "p4-program": "tests/data/p4/v1model_ops.json"}]}}\n'
                    "async def scenario(sim):\n    pass\n")
    r = subprocess.run([os.path.join(ROOT, "dpusim"), "run", str(scen), "--out", str(tmp_path / "out")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 2
    assert ("$.topology.slots[0].p4-program: tests/data/p4/v1model_ops.json: error[unsupported]: " + ERNIC_OPS) in r.stderr


def test_p4_features_bmv2_runs_the_wider_program():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        p4 = IonicP4(nic)
        await p4.update([{"type": "INSERT", "table": "ingress.ops", "match": [{"field": "tag.op", "value": "7"}],
                          "action": "ingress.set_port", "params": {"port": "0"}}])
        back = frame(nic.mac, PEER_MAC, 64, fill=7)     # tag.op 7: the entry sends it back to the guest
        await nic.send(back)
        (_, got), = await nic.recv(1)
        out = frame(PEER_MAC, nic.mac, 64, fill=8)      # no entry: egress_spec unassigned, the other port
        await nic.send(out)
        wire = await sim.net.recv(0, timeout_ps=us(100))
        # egress's mark table stamps the tag's last bytes: the headers and tag.op come through.
        return got[:15] == back[:15], len(got), wire.data[:15] == out[:15], len(wire.data)

    slot = {"p4-program": program("v1model_ops.json"), "p4-features": "bmv2", "p4-guest-scope": "write"}
    res = run_ok(scenario, ionic_platform(slot, wires=[("ep0", "python")]))
    assert res.result == (True, 64, True, 64)
    (load,) = res.events("p4_load", path="ep0")
    assert (load["source"], load["features"]) == ("v1model_ops.json", "bmv2")
    loaded = [e["msg"] for e in res.events("log", path="ep0") if "P4 program loaded" in e["msg"]]
    assert loaded == ["rocm-ernic: P4 program loaded (bmv2 feature set): " + load["summary"]]
    assert [(e["in_port"], e["egress_port"]) for e in res.events("p4_verdict", path="ep0")] == [(0, 0), (0, 1)]


def test_the_load_line_says_the_ernic_set_runs_by_default():
    async def scenario(sim):
        pass

    res = run_ok(scenario, ionic_platform({"p4-program": program("loopback.json")}))
    (load,) = res.events("p4_load", path="ep0")
    assert load["features"] == "ernic"
    assert [e["msg"] for e in res.events("log", path="ep0") if "P4 program loaded" in e["msg"]] == [
        "rocm-ernic: P4 program loaded (ernic feature set): " + load["summary"]]
