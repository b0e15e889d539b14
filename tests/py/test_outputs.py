"""The run's outputs: the VCD shows link and slot state at the logged times; the same scenario
and seed give byte-identical event logs and VCDs; the log's format."""
import hashlib
import json
import os

from vcd import read_vcd

from dpusim.cli import load_scenario
from dpusim.drivers.pci import pci_host_probe
from dpusim.run import run
from dpusim.testing import run_ok
from dpusim.units import ms

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_vcd_shows_dllla_and_slot_bits_at_the_logged_times(tmp_path):
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        dsp = pci.find("01:00.0")
        cap = dsp.cap(0x10)
        ctl = await sim.host.config_read16(dsp.rid, cap + 0x18)
        await sim.host.config_write16(dsp.rid, cap + 0x18, ctl | 0x400)   # power off
        await sim.sleep(ms(1))
        await sim.host.config_write16(dsp.rid, cap + 0x18, ctl & ~0x400)  # power on
        await sim.sleep(sim.cost("slot.link_train_ps") + ms(1))
        sta = await sim.host.config_read16(dsp.rid, cap + 0x1A)
        lnk = await sim.host.config_read16(dsp.rid, cap + 0x12)
        return sta, lnk

    res = run_ok(scenario, {"topology": {"endpoints": 1}}, out=str(tmp_path))
    sta, lnk = res.result
    assert lnk & 0x2000, "DLLLA set again after power on"
    assert sta & 0x0110 == 0x0110, "Data Link Layer State Changed and Command Completed"
    waves = read_vcd(tmp_path / "waves.vcd")
    link_events = res.events("link_state", path="link_dsp0")
    assert [e["up"] for e in link_events] == [False, True]
    dllla = [(t, v) for t, v in waves["switch.dsp0.dllla"] if t > 0]
    assert dllla == [(link_events[0]["time_ps"], 0), (link_events[1]["time_ps"], 1)]
    controls = res.events("slot_control", path="switch.dsp0")
    slot_ctl = waves["switch.dsp0.slot_ctl"]
    for c in controls:
        assert (c["time_ps"], int(c["after"], 16)) in slot_ctl
    # Command Completed (0x10) appears in Slot Status at the first Slot Control write.
    assert any(t == controls[0]["time_ps"] and v & 0x10 for t, v in waves["switch.dsp0.slot_sta"])
    assert waves["link_dsp0.up"][-1] == (link_events[1]["time_ps"], 1)


def test_same_scenario_and_seed_give_identical_outputs(tmp_path):
    for name in ("enumerate", "race_two_tasks"):
        fn, platform = load_scenario(os.path.join(ROOT, "scenarios", f"{name}.py"))
        a = run(fn, platform, seed=7, out=str(tmp_path / f"{name}-a"))
        b = run(fn, platform, seed=7, out=str(tmp_path / f"{name}-b"))
        assert a.ok and b.ok, (a.describe(), b.describe())
        assert a.hash == b.hash
        for f in ("events.jsonl", "waves.vcd"):
            assert (tmp_path / f"{name}-a" / f).read_bytes() == (tmp_path / f"{name}-b" / f).read_bytes(), f
        assert a.hash == hashlib.sha256((tmp_path / f"{name}-a" / "events.jsonl").read_bytes()).hexdigest()


def test_event_log_format_keys_sorted_no_spaces_seed_first():
    async def scenario(sim):
        sim.log("hello \"world\"\n", level="debug")
        sim.log_event("scenario", "custom", zeta=1, alpha=[1, 2], text="é")

    res = run_ok(scenario, {"topology": {"endpoints": 1}, "seed": 42})
    lines = res.log.decode().splitlines()
    first = json.loads(lines[0])
    assert first["event"] == "platform_start" and first["seed"] == 42 and first["time_ps"] == 0
    for line in lines:
        obj = json.loads(line)
        assert line == json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert isinstance(obj["time_ps"], int) and "path" in obj and "event" in obj
    (log,) = res.events("log")
    assert log["msg"] == "hello \"world\"\n" and log["level"] == "debug"
    (custom,) = res.events("custom")
    assert custom["alpha"] == [1, 2] and custom["text"] == "é"


def test_the_vcd_header_has_a_fixed_date(tmp_path):
    async def scenario(sim):
        await sim.sleep(1000)

    run_ok(scenario, {"topology": {"endpoints": 1}}, out=str(tmp_path))
    head = (tmp_path / "waves.vcd").read_text().split("$end")[0]
    assert head.strip() == "$date\n     (fixed: dpusim runs are reproducible)".strip()
