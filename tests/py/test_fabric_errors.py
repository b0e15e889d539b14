"""What a host sees when nothing answers: UR on absent functions and unclaimed memory, the
completion timeout at the profile's time, posted writes to nowhere dropped and counted, and bus
renumbering taking effect at once."""
from dpusim.bdf import bdf
from dpusim.drivers.pci import MMIO32_END, pci_host_probe
from dpusim.run import run
from dpusim.testing import run_ok
from dpusim.units import ms

PLATFORM = {"topology": {"slots": [{"kind": "test"}, None]}}


def test_config_read_of_absent_functions_is_ur_with_all_ones():
    async def scenario(sim):
        await pci_host_probe(sim)
        h = sim.host
        for target in ("02:01.0",   # device 1 below a downstream port (no ARI)
                       "02:00.3",   # a function the endpoint does not have
                       "03:00.0",   # the empty slot's bus: its link is down
                       "01:05.0",   # no such port on the switch's bus
                       "00:02.0",   # nothing but the USP on the root bus
                       "40:00.0"):  # a bus no bridge covers
            cpl = await h.config_read(target, 0, 4)
            assert (cpl.status, cpl.data) == ("UR", b"\xff\xff\xff\xff"), target
        # A sub-DW read of an absent function is all-ones too.
        cpl = await h.config_read("02:01.0", 2, 2)
        assert (cpl.status, cpl.value) == ("UR", 0xFFFF)
        return len([1 for _ in range(1)])

    res = run_ok(scenario, PLATFORM)
    urs = res.events("unsupported_request")
    assert len(urs) >= 6
    assert all(e["path"] in ("switch.dummy", "ep0") for e in urs)


def test_unclaimed_memory_read_is_ur_and_posted_write_is_dropped_and_counted():
    async def scenario(sim):
        await pci_host_probe(sim)
        nowhere = MMIO32_END - 0x1000  # inside the aperture, outside every window
        cpl = await sim.host.mem_read(nowhere, 8)
        assert cpl.status == "UR" and cpl.data == b"\xff" * 8
        await sim.host.mem_write32(nowhere, 0x12345678)
        await sim.sleep(ms(0.001))

    res = run_ok(scenario, PLATFORM)
    dropped = res.events("posted_dropped", path="switch.dummy")
    assert len(dropped) == 1 and dropped[0]["type"] == "MWr"
    assert dropped[0]["reason"] == "address in no downstream port's window"


def test_completion_timeout_fires_at_the_profile_time():
    async def scenario(sim):
        await pci_host_probe(sim)
        sim.expect_violation("completion_timeout")
        sim.faults.drop(type="CplD", path="link_host")
        sent = sim.wait_event("tlp", path="link_host", type="CfgRd1", dir="down")
        cpl = await sim.host.config_read("02:00.0", 0)
        issued = (await sent)["time_ps"]
        assert cpl.status == "TIMEOUT" and cpl.value == 0xFFFFFFFF
        assert cpl.time_ps == issued + sim.cost("cpl_timeout_ps") == issued + ms(50)
        return issued

    res = run_ok(scenario, PLATFORM)
    (timeout,) = res.events("cpl_timeout")
    assert timeout["time_ps"] == res.result + 50_000_000_000
    (v,) = res.events("invariant_violation")
    assert v["kind"] == "completion_timeout" and v["expected"] is True


def test_a_completion_after_the_timeout_is_an_unexpected_completion():
    async def scenario(sim):
        await pci_host_probe(sim)
        sim.set_cost("cpl_timeout_ps", ms(1))
        sim.expect_violation("completion_timeout")
        sim.expect_violation("unexpected_completion")
        sim.faults.delay(ms(2), type="CplD", path="link_host")
        cpl = await sim.host.config_read("02:00.0", 0)
        assert cpl.status == "TIMEOUT"
        await sim.sleep(ms(3))

    res = run_ok(scenario, PLATFORM)
    (late,) = res.events("unexpected_completion", path="link_host")
    (timeout,) = res.events("cpl_timeout")
    assert late["time_ps"] > timeout["time_ps"]


def test_bus_renumbering_takes_effect_at_once():
    async def scenario(sim):
        await pci_host_probe(sim)
        h = sim.host
        vendor_device = (await h.config_read("02:00.0", 0)).value
        # Move slot 0's bus from 2 to 0x10 (and widen the USP's range to cover it).
        await h.config_write("00:00.0", 0x1A, 0x10, 1)
        await h.config_write("01:00.0", 0x19, 0x10, 1)
        await h.config_write("01:00.0", 0x1A, 0x10, 1)
        old = await h.config_read("02:00.0", 0)
        new = await h.config_read("10:00.0", 0)
        assert old.status == "UR" and old.value == 0xFFFFFFFF
        assert new.status == "SC" and new.value == vendor_device
        # The endpoint captures its new bus number from the next Type 0 write it completes.
        await h.config_write("10:00.0", 0x3C, 0x5, 1)
        assert sim.platform.function_id("ep0") == bdf("10:00.0")

    run_ok(scenario, PLATFORM)


def test_raw_tlp_api_sends_what_it_is_given():
    async def scenario(sim):
        await pci_host_probe(sim)
        cpl = await sim.host.send_tlp("CfgRd1", target="02:00.0", reg=0, first_be=0xF)
        assert cpl.status == "SC" and cpl.value & 0xFFFF == 0x1234
        cpl = await sim.host.send_tlp("CfgRd0", target="00:00.0", reg=0x8, first_be=0xF)
        assert cpl.value >> 8 == 0x060400
        mem = [d for d in (await pci_host_probe(sim)).devices() if d.bdf == "02:00.0"][0]
        base = next(b.base for b in mem.bars if b.index == 0)
        cpl = await sim.host.send_tlp("MRd", address=base, length=1, first_be=0xF)
        assert cpl.status == "SC" and cpl.value == 0x7E57E9D0

    run_ok(scenario, PLATFORM)


def test_unexpected_request_type_from_the_host_gets_ur():
    async def scenario(sim):
        await pci_host_probe(sim)
        cpl = await sim.host.send_tlp("IORd", address=0x1000, length=1, first_be=0xF)
        assert cpl.status == "UR"

    run_ok(scenario, PLATFORM)
