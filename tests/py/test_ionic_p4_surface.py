"""The ionic NIC's P4 control surface (devcmds 70-72): registration and the capability bit,
every refusal (malformed commands EINVAL, scope EPERM with the operator's grant checked first,
ENOENT), lists that report what fitted and what exists, table updates, chunked program
replacement (a partial or malformed upload leaves the old program; a reload discards the old
entries and keeps the counters), and the rate limit on the refusal log."""
import struct

import pytest

from dpusim.drivers.ionic import cmd_bytes
from dpusim.drivers.ionic_p4 import IonicP4, P4ControlError
from dpusim.drivers.ionic_regs import (COMP_STATUS, IONIC_CMD_P4_IDENTIFY, IONIC_CMD_P4_QUERY, IONIC_CMD_P4_RPC,
                                       IONIC_RC_EINVAL, IONIC_RC_ENOENT, IONIC_RC_EOPCODE, IONIC_RC_EPERM)
from dpusim.testing import run_ok
from dpusim.units import s, us
from ionic_util import PEER_MAC, bring_up, frame, fwd, ionic_platform, program

LOOPBACK = program("loopback.json")
FORWARD = program("minimal_forward.json")


async def refused(coro):
    try:
        await coro
    except P4ControlError as e:
        return e.status, e.err, e.text
    raise AssertionError("the command was not refused")


def test_unregistered_surface_is_unknown_opcodes_and_no_capability():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim, open_=False)
        h = sim.host
        buf = h.alloc(64)
        h.write(buf, b"\xee" * 64)
        out = {"cap": IonicP4(nic).advertised}
        for via in ("devcmd", "adminq"):
            command = nic.dev_cmd if via == "devcmd" else nic.adminq_cmd
            out[via] = [(await command(cmd_bytes(op, [(4, "I", 32), (8, "Q", buf)]), check=False))[COMP_STATUS]
                        for op in (IONIC_CMD_P4_IDENTIFY, IONIC_CMD_P4_RPC, IONIC_CMD_P4_QUERY)]
        out["untouched"] = h.read(buf, 64) == b"\xee" * 64
        return out

    for slot in ({}, {"p4": True}, {"p4-program": LOOPBACK, "p4-guest-scope": "none"}):
        o = run_ok(scenario, ionic_platform(slot)).result
        assert o == {"cap": False, "devcmd": [IONIC_RC_EOPCODE] * 3, "adminq": [0, 0, 0], "untouched": True}


def test_a_granted_scope_registers_the_surface():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim, open_=False)
        p4 = IonicP4(nic, via="devcmd")
        return p4.advertised, await p4.identify(), await p4.endpoints(), await p4.operations()

    cap, ident, eps, ops = run_ok(scenario, ionic_platform({"p4-guest-scope": "read"})).result
    assert cap and ident == {"version": 1, "max_req_sz": 65536, "max_resp_sz": 65536, "scope": "read", "endpoints": 1}
    assert eps == ([0], 1) and ops == ([(1, "read")], 1)   # only what the operator granted


def test_malformed_commands_are_einval():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim, open_=False)
        p4 = IonicP4(nic)
        buf = sim.host.alloc(64)
        cmds = [
            cmd_bytes(IONIC_CMD_P4_IDENTIFY, [(4, "I", 32)]),                                   # no ident_pa
            cmd_bytes(IONIC_CMD_P4_QUERY, [(1, "B", 5), (4, "I", 64), (8, "Q", buf)]),          # entity 5
            cmd_bytes(IONIC_CMD_P4_QUERY, [(4, "I", 8), (8, "Q", buf)]),                        # under the header
            cmd_bytes(IONIC_CMD_P4_QUERY, [(4, "I", 70000), (8, "Q", buf)]),                    # over the limit
            cmd_bytes(IONIC_CMD_P4_RPC, [(1, "B", 4), (8, "I", 1)]),                            # claim 4
            cmd_bytes(IONIC_CMD_P4_RPC, [(1, "B", 3), (2, "H", 4), (8, "I", 1)]),               # flags
            cmd_bytes(IONIC_CMD_P4_RPC, [(1, "B", 3), (2, "H", 2), (8, "I", 1), (44, "Q", buf), (52, "I", 64),
                                         (56, "B", 1)]),                                        # an SG list
            cmd_bytes(IONIC_CMD_P4_RPC, [(1, "B", 3), (2, "H", 1), (8, "I", 2), (28, "Q", buf), (36, "I", 70000)]),
            cmd_bytes(IONIC_CMD_P4_RPC, [(1, "B", 3), (8, "I", 2), (28, "Q", buf), (36, "I", 8)]),  # inline
            cmd_bytes(IONIC_CMD_P4_RPC, [(1, "B", 3), (2, "H", 2), (8, "I", 1), (52, "I", 64)]),  # resp_pa 0
        ]
        statuses = [(await p4._command(c))[COMP_STATUS] for c in cmds]
        small = await refused(p4.rpc(1, resp_size=8))
        return statuses, small

    res = run_ok(scenario, ionic_platform({"p4-guest-scope": "load"}))
    statuses, small = res.result
    assert statuses == [IONIC_RC_EINVAL] * 10 and small[0] == IONIC_RC_EINVAL
    reasons = [e["reason"] for e in res.events("p4_refused", path="ep0")]
    assert reasons == [
        "ident_pa is 0 for a buffer of 32 bytes",
        "query entity 5 is not 0 (endpoints) or 1 (operations)",
        "query buffer of 8 bytes is smaller than the 16-byte list header",
        "query buffer of 70000 bytes exceeds the limit of 65536",
        "claimed scope 4 is not 0..3 (none, read, write, load)",
        "flags 0x4 has bits other than IND_REQ (0x1) and IND_RESP (0x2)",
        "scatter-gather lists are not supported (req_sg_elems 0, resp_sg_elems 1)",
        "req_sz 70000 exceeds the limit of 65536",
        "req_sz 8 without the indirect flag: inline data is not supported",
        "resp_pa is 0 for 64 bytes",
        "read_counters response buffer of 8 bytes is smaller than the 16-byte list header"]


def test_scope_refusals_check_the_operators_grant_before_the_callers_claim():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim, open_=False)
        p4 = IonicP4(nic)
        return [await refused(p4.rpc(2, b"[]", claim="load")),      # write op, read granted
                await refused(p4.rpc(99, claim="load")),            # no such operation
                await refused(p4.rpc(1, ep=7, claim="load")),       # no such endpoint
                await refused(p4.rpc(1, claim="none")),             # granted, not claimed
                await refused(p4.query(1, ep=3))]                   # query of a missing endpoint

    res = run_ok(scenario, ionic_platform({"p4-guest-scope": "read"}))
    assert [r[0] for r in res.result] == [IONIC_RC_EPERM] * 4 + [IONIC_RC_ENOENT]
    reasons = [e["reason"] for e in res.events("p4_refused", path="ep0")]
    assert reasons == ["endpoint 0 operation 2 (table_update) needs scope write, the operator granted read",
                       "endpoint 0 operation 99 does not exist", "endpoint 7 operation 1 does not exist",
                       "endpoint 0 operation 1 (read_counters) needs scope read, the caller claimed none",
                       "no endpoint 3"]


def test_lists_report_what_fitted_and_what_exists():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim, open_=False)
        p4 = IonicP4(nic)
        ops = await p4.operations(buf_len=16 + 8)
        _, _, data = await p4.rpc(1, resp_size=16 + 2 * 32)
        return ops, struct.unpack_from("<II", data, 4), len(data), await p4.counters()

    ops, (written, total), length, counters = run_ok(scenario, ionic_platform({"p4-guest-scope": "load"})).result
    assert ops == ([(1, "read")], 4)
    assert (written, total, length) == (2, 12, 16 + 2 * 32)
    assert list(counters) == ["host_in", "host_out", "uplink_in", "uplink_out", "dropped", "too_big", "parse_errors",
                              "to_guest", "to_net", "to_upstream", "egress_errors", "faults"]


def test_table_updates_and_their_refusals():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        p4 = IonicP4(nic)
        out = [await p4.update([fwd("INSERT", 0)])]
        out.append(await refused(p4.update([fwd("MODIFY", 1), {**fwd("INSERT", 1), "table": "ingress.nope"}])))
        out.append(await refused(p4.update([{**fwd("INSERT", 1), "table": "ingress.f\u00e9d"}])))
        out.append(await refused(p4.update("[{")))
        await nic.send(frame(PEER_MAC, nic.mac, 64))   # the MODIFY applied before the refusal: port 1
        out.append((await sim.net.recv(0, timeout_ps=us(100))).data[:6])
        return out

    res = run_ok(scenario, ionic_platform({"p4-program": FORWARD, "p4-guest-scope": "write"}, wires=[("ep0", "python")]))
    applied, unknown, ascii_, syntax, dst = res.result
    assert applied == 1 and dst == PEER_MAC
    assert unknown[:2] == (IONIC_RC_EINVAL, 1) and unknown[2].startswith("error[unknown_table]: ")
    assert ascii_[:2] == (IONIC_RC_EINVAL, 19)
    assert ascii_[2] == "update 0: table name holds byte 0xc3 at offset 9: names and values must be printable ASCII"
    assert syntax[:2] == (IONIC_RC_EINVAL, 19) and syntax[2] == "updates document is not valid JSON"
    assert [(e["type"], e["table"]) for e in res.events("p4_update", path="ep0")] == [
        ("INSERT", "ingress.fwd"), ("MODIFY", "ingress.fwd")]


def test_no_program_running_refuses_updates_with_enoent():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim, open_=False)
        return await refused(IonicP4(nic).update([fwd("INSERT", 0)]))

    assert run_ok(scenario, ionic_platform({"p4": True, "p4-guest-scope": "write"})).result == (
        IONIC_RC_ENOENT, 0, "no P4 program is running")


def test_partial_and_malformed_uploads_leave_the_old_program_running():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        p4 = IonicP4(nic)
        text = open(FORWARD, "rb").read()
        out = []
        await p4.rpc(3, struct.pack("<II", 0, len(text)) + text[:1000], resp_size=4)
        out.append(await refused(p4.rpc(3, struct.pack("<II", 2000, len(text)) + text[2000:3000], resp_size=256)))
        out.append(await refused(p4.rpc(4, struct.pack("<I", len(text)), resp_size=256)))
        out.append(await refused(p4.rpc(3, struct.pack("<II", 0, 0), resp_size=256)))
        out.append(await refused(p4.load_program(b'{"header_types": [')))
        mine = frame(nic.mac, PEER_MAC, 64)
        await nic.send(mine)                            # loopback.json still runs: it comes back
        (_, back), = await nic.recv(1)
        out.append(back == mine)
        return out

    res = run_ok(scenario, ionic_platform({"p4-program": LOOPBACK, "p4-guest-scope": "load"}))
    gap, partial, zero, broken, still = res.result
    assert gap == (IONIC_RC_EINVAL, 0, "chunk at offset 2000 of 6650 does not continue the upload "
                                       "(1000 of 6650 bytes received)")
    assert partial == (IONIC_RC_EINVAL, 0, "upload incomplete: 1000 of 6650 bytes received, commit names 6650; "
                                           "the running program stays")
    assert zero == (IONIC_RC_EINVAL, 0, "program total 0 bytes outside 1..4194304")
    assert broken[:2] == (IONIC_RC_EINVAL, 5) and broken[2].startswith("error[json_syntax]: ")
    assert still
    assert [e["source"] for e in res.events("p4_load", path="ep0")] == ["loopback.json"]


def test_a_reload_discards_the_entries_and_keeps_the_counters():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        p4 = IonicP4(nic)
        await p4.update([fwd("INSERT", 0)])
        mine = frame(PEER_MAC, nic.mac, 64)
        await nic.send(mine)
        await nic.recv(1)                               # forwarded to port 0 by the entry
        before = await p4.counters()
        summary = await p4.load_program(FORWARD)
        await nic.send(mine)                            # the same program, no entry: dropped
        await sim.sleep(us(50))
        after = await p4.counters()
        return summary, before, after, len(nic.rx_frames)

    summary, before, after, pending = run_ok(
        scenario, ionic_platform({"p4-program": FORWARD, "p4-guest-scope": "load"})).result
    assert summary.startswith("minimal_forward.p4: 1 headers")
    assert (before["host_in"], before["to_guest"], before["dropped"]) == (1, 1, 0)
    assert (after["host_in"], after["to_guest"], after["dropped"]) == (2, 1, 1)
    assert pending == 0


def test_refusals_are_logged_ten_per_five_seconds_then_counted():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim, open_=False)
        p4 = IonicP4(nic)
        t0 = sim.now
        for _ in range(25):
            await refused(p4.rpc(3, claim="load"))
        await sim.sleep(s(5))
        await refused(p4.rpc(3, claim="load"))
        return t0

    res = run_ok(scenario, ionic_platform({"p4-guest-scope": "read"}))
    lines = [e["msg"] for e in res.events("log", path="ep0") if e["level"] == "warning"]
    refusal = ("rocm-ernic: P4 control refused P4_RPC (EPERM): endpoint 0 operation 3 (program_chunk) needs scope "
               "load, the operator granted read")
    assert lines[:10] == [refusal] * 10
    assert len(lines) == 12 and lines[11] == refusal
    first = res.events("p4_refused", path="ep0")[0]["time_ps"]
    assert lines[10] == f"rocm-ernic: P4 control refusals not logged: 15 in the 5 s from t={first} ps"
    assert len(res.events("p4_refused", path="ep0")) == 26


@pytest.mark.parametrize("via", ["devcmd", "adminq"])
def test_the_surface_answers_on_both_paths(via):
    async def scenario(sim):
        _, (nic,) = await bring_up(sim, open_=False)
        p4 = IonicP4(nic, via=via)
        return (await p4.identify())["scope"], await p4.update([fwd("INSERT", 1)]), (await p4.counters())["host_in"]

    assert run_ok(scenario, ionic_platform({"p4-program": FORWARD, "p4-guest-scope": "write"})).result == ("write", 1, 0)


OPS = program("v1model_ops.json")
ERNIC_OPS = ("checksum 'cksum_verify': 'checksums' is not supported yet (the ernic feature set: rocm-ernic's P4 engine "
             "refuses it by name; the program also uses 'calculations', 'counters', 'meters', 'registers', 'action "
             "profiles'; the bmv2 feature set runs them)")


def guest_loads_ops(slot):
    async def scenario(sim):
        _, (nic,) = await bring_up(sim)
        p4 = IonicP4(nic)
        try:
            outcome = await p4.load_program(OPS)
        except P4ControlError as e:
            outcome = (e.status, e.err, e.text)
        await nic.send(frame(nic.mac, PEER_MAC, 64))   # loopback.json returns it to the guest
        await sim.sleep(us(50))
        return outcome

    res = run_ok(scenario, ionic_platform(dict(slot, **{"p4-program": LOOPBACK, "p4-guest-scope": "load"})))
    verdicts = [e.get("egress_port", e.get("dropped")) for e in res.events("p4_verdict", path="ep0")]
    return res, verdicts


def test_a_guest_load_of_what_rocm_ernic_refuses_leaves_the_old_program_naming_the_feature():
    # v1model_ops.json: counters, registers, range tables, a selector, checksums.
    res, verdicts = guest_loads_ops({})
    assert res.result == (IONIC_RC_EINVAL, 28, "error[unsupported]: " + ERNIC_OPS)   # err: load code 27 + 1
    assert verdicts == [0]                     # loopback.json still runs
    assert [e["source"] for e in res.events("p4_load", path="ep0")] == ["loopback.json"]
    assert [e["msg"] for e in res.events("log", path="ep0") if e["level"] == "warning"] == [
        "rocm-ernic: P4 control refused P4_RPC (EINVAL): program_commit: error[unsupported]: " + ERNIC_OPS +
        "; the running program stays"]


def test_a_guest_load_under_p4_features_bmv2_runs_the_wider_program():
    res, verdicts = guest_loads_ops({"p4-features": "bmv2"})
    assert res.result.startswith("v1model_ops.p4: ")
    # v1model_ops.json with no entries never assigns egress_spec: the frame goes to the other
    # port, the uplink, which has no wire.
    assert verdicts == ["egress_error"]
    loads = res.events("p4_load", path="ep0")
    assert [(e["source"], e["features"]) for e in loads] == [("loopback.json", "bmv2"), ("guest", "bmv2")]
    assert [e["msg"] for e in res.events("log", path="ep0") if "P4 program loaded" in e["msg"]][-1] == (
        "rocm-ernic: P4 program loaded (bmv2 feature set): " + res.result)
