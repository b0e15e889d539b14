"""The application's switch as the host sees it in config space (vnet_pci_device.c: config images, BDF lookup): the
identities and capability chains of the USP, the DSPs and the endpoints' VirtIO images, the
application's write rules and quirks, and its BDF routing."""
import pytest

from dpusim.testing import run_ok
from vnet_util import msgs, vnet_platform

USP, DSP0, EP0 = "00:00.0", "01:00.0", "02:00.0"


async def number_buses(sim):
    """The bus numbers Linux would give, written by hand: USP 0/1/ff, DSP0 1/2/2."""
    await sim.host.config_write32(USP, 0x18, 0x00FF0100)
    await sim.host.config_write32(DSP0, 0x18, 0x00020201)


async def read_all(sim, bdf, offsets):
    return {off: await sim.host.config_read32(bdf, off) for off in offsets}


@pytest.mark.dpusim(platform=vnet_platform(num_ep=2))
async def test_usp_image_and_chain(sim):
    dws = await read_all(sim, USP, [0x00, 0x04, 0x08, 0x0C, 0x10, 0x14, 0x18, 0x1C, 0x20, 0x24, 0x34, 0x3C, 0x40,
                                    0x44, 0x48, 0x50, 0x60, 0x64, 0x68, 0x6C, 0x70, 0x74, 0x78, 0x9C, 0x100])
    assert dws == {0x00: 0x10F11AF4, 0x04: 0x00100400, 0x08: 0x06040000, 0x0C: 0x00010000, 0x10: 0, 0x14: 0,
                   0x18: 0, 0x1C: 0, 0x20: 0, 0x24: 0x00010001, 0x34: 0x60, 0x3C: 0,
                   0x40: 0xC8030001, 0x44: 0x00000008, 0x48: 0, 0x50: 0,
                   0x60: 0x00524010, 0x64: 0x00008001, 0x68: 0, 0x6C: 0x00500104, 0x70: 0x11040000, 0x74: 0,
                   0x78: 0, 0x9C: 0, 0x100: 0}


@pytest.mark.dpusim(platform=vnet_platform(num_ep=2))
async def test_dsp_image_in_static_mode_is_powered_present_and_link_active(sim):
    await sim.host.config_write32(USP, 0x18, 0x00FF0100)
    dws = await read_all(sim, DSP0, [0x00, 0x04, 0x08, 0x0C, 0x24, 0x34, 0x40, 0x44, 0x50, 0x54, 0x58, 0x5C,
                                     0x60, 0x64, 0x6C, 0x70, 0x74, 0x78])
    assert dws == {0x00: 0x10F11AF4, 0x04: 0x00100400, 0x08: 0x06040000, 0x0C: 0x00010000, 0x24: 0x00010001,
                   0x34: 0x60, 0x40: 0xC8030001, 0x44: 0x00000008, 0x50: 0x00804005, 0x54: 0, 0x58: 0, 0x5C: 0,
                   0x60: 0x01625010, 0x64: 0x00008001, 0x6C: 0x01500104, 0x70: 0x31040000, 0x74: 0x00001062,
                   0x78: 0x00400000}


@pytest.mark.dpusim(platform=vnet_platform(num_ep=1, hotplug_mode=1))
async def test_dsp_slot_in_hotplug_mode_starts_powered_off_and_empty(sim):
    await sim.host.config_write32(USP, 0x18, 0x00FF0100)
    assert await read_all(sim, DSP0, [0x70, 0x78]) == {0x70: 0x11040000, 0x78: 0x00000400}


@pytest.mark.dpusim(platform=vnet_platform(num_ep=2))
async def test_endpoint_virtio_image_and_capabilities(sim):
    offsets = [0x00, 0x04, 0x08, 0x0C, 0x10, 0x14, 0x18, 0x2C, 0x30, 0x34, 0x3C, 0x40, 0x44, 0x48, 0x4C, 0x50,
               0x64, 0x68, 0x6C, 0x70, 0x74, 0x78, 0x7C, 0x80, 0x84, 0x88, 0x8C, 0x90, 0x94, 0x98, 0x9C, 0xA0,
               0xA4, 0xA8, 0xAC, 0xB0, 0xB4, 0xB8, 0xBC, 0xC0, 0x100, 0xFFC]
    await number_buses(sim)
    dws = await read_all(sim, EP0, offsets)
    assert dws == {0x00: 0x10411AF4, 0x04: 0x00100000, 0x08: 0x02000001, 0x0C: 0, 0x10: 0x0000000C, 0x14: 0,
                   0x18: 0, 0x2C: 0x00011AF4, 0x30: 0, 0x34: 0x40, 0x3C: 0,
                   0x40: 0x00026410, 0x44: 0x00008001, 0x48: 0, 0x4C: 0x00011C85, 0x50: 0x10850000,
                   0x64: 0x00FF7011, 0x68: 0x00002000, 0x6C: 0x00003000,
                   0x70: 0x01108009, 0x74: 0, 0x78: 0x0000, 0x7C: 0x100,
                   0x80: 0x02149409, 0x84: 0, 0x88: 0x4000, 0x8C: 0x1000, 0x90: 8,
                   0x94: 0x0310A409, 0x98: 0, 0x9C: 0x100, 0xA0: 1,
                   0xA4: 0x0410B409, 0xA8: 0, 0xAC: 0x200, 0xB0: 0x100,
                   0xB4: 0x05140009, 0xB8: 0, 0xBC: 0, 0xC0: 0, 0x100: 0, 0xFFC: 0}


def test_endpoint_write_rules():
    async def scenario(sim):
        h = sim.host
        await number_buses(sim)
        out = {}
        await h.config_write16(EP0, 0x04, 0xFFFF)
        out["command"] = await h.config_read16(EP0, 0x04)
        await h.config_write32(EP0, 0x10, 0xFFFFFFFF)
        out["bar0_sizing"] = await h.config_read32(EP0, 0x10)
        await h.config_write32(EP0, 0x14, 0xFFFFFFFF)
        out["bar1_sizing"] = await h.config_read32(EP0, 0x14)
        await h.config_write16(EP0, 0x10, 0x5678)  # bytes 2-3 not enabled: they become 0
        out["bar0_partial"] = await h.config_read32(EP0, 0x10)
        await h.config_write8(EP0, 0x0C, 0x10)     # Cache Line Size is read-only here
        out["cls"] = await h.config_read32(EP0, 0x0C)
        await h.config_write16(EP0, 0x48, 0x2000)  # Device Control is read-only
        out["devctl"] = await h.config_read32(EP0, 0x48)
        await h.config_write16(EP0, 0x66, 0xFFFF)  # MSI-X: Enable and Function Mask only
        out["msix"] = await h.config_read32(EP0, 0x64)
        await h.config_write8(EP0, 0x66, 0x00)     # the top byte not enabled: untouched
        out["msix_low_byte"] = await h.config_read32(EP0, 0x64)
        cpl = await h.config_read(EP0, 0x02, 2)    # reads are masked with the byte enables
        out["device_id"] = cpl.value
        return out

    res = run_ok(scenario, vnet_platform(num_ep=1))
    assert res.result == {"command": 0x0547, "bar0_sizing": 0xFFFF800C, "bar1_sizing": 0xFFFFFFFF,
                          "bar0_partial": 0x0000567C, "cls": 0, "devctl": 0, "msix": 0xC0FF7011,
                          "msix_low_byte": 0xC0FF7011, "device_id": 0x1041}
    assert msgs(res, level="debug").count("EP BAR0 Sizing: returning 0xffff800c (32KB)") == 1
    assert "EP BAR1 Sizing: returning 0xffffffff (32KB upper)" in msgs(res)


def test_bridge_write_quirks():
    async def scenario(sim):
        h = sim.host
        await sim.host.config_write32(USP, 0x18, 0x00FF0100)
        out = {}
        await h.config_write32(DSP0, 0x28, 0x11223344)
        await h.config_write8(DSP0, 0x29, 0xAB)     # the whole DW is written from one byte
        out["pref_upper"] = await h.config_read32(DSP0, 0x28)
        await h.config_write32(DSP0, 0x24, 0xFFFFFFFF)
        out["pref"] = await h.config_read32(DSP0, 0x24)
        await h.config_write16(DSP0, 0x3E, 0xFFFF)  # Bridge Control: parity and SBR only
        await h.config_write8(DSP0, 0x3D, 0x05)     # Interrupt Pin is writable
        out["dw15"] = await h.config_read32(DSP0, 0x3C)
        await h.config_write16(DSP0, 0x68, 0xFFFF)
        await h.config_write8(DSP0, 0x68, 0x12)     # the whole low half from one byte
        out["devctl"] = await h.config_read16(DSP0, 0x68)
        await h.config_write8(DSP0, 0x54, 0xE0)     # MSI address: whole DW, byte enables ignored
        out["msi_addr"] = await h.config_read32(DSP0, 0x54)
        await h.config_write16(DSP0, 0x7A, 0x0040)  # Slot Status: W1C on all 16 bits, PDS too
        out["sltsta"] = await h.config_read16(DSP0, 0x7A)
        await h.config_write16(DSP0, 0x78, 0x0000)  # any Slot Control write: Command Completed
        out["sltsta_cc"] = await h.config_read16(DSP0, 0x7A)
        return out

    res = run_ok(scenario, vnet_platform(num_ep=1))
    assert res.result == {"pref_upper": 0x0000AB00, "pref": 0xFFF1FFF1, "dw15": 0x00410500, "devctl": 0x0012,
                          "msi_addr": 0x000000E0, "sltsta": 0x0000, "sltsta_cc": 0x0010}
    debug = msgs(res, level="debug")
    assert "BR_CTL: Secondary Bus Reset 0->1" in debug
    assert "Slot Status W1C: cleared bits 0x0040, new status=0x0000" in debug
    assert "Express cap write to offset 24 (ignored)" not in debug  # Slot Control is not ignored


def test_routing_quirks_type0_at_any_bus_and_the_dummy():
    async def scenario(sim):
        h = sim.host
        out = {}
        # A Type 0 request reaches the USP whatever its bus number.
        cpl = await h.send_tlp("CfgRd0", target="05:00.0", reg=0, first_be=0xF)
        out["type0_bus5"] = (cpl.status, cpl.value)
        out["type0_dev1"] = (await h.config_read("00:01.0", 0)).status
        await h.config_write32(USP, 0x18, 0x00FF0100)
        out["dsp_beyond_n"] = (await h.config_read("01:01.0", 0)).status
        out["ep_without_bus"] = (await h.config_read("02:00.0", 0)).status
        await h.config_write32(DSP0, 0x18, 0x00020201)
        out["ep"] = (await h.config_read("02:00.0", 0)).value
        out["ep_dev1"] = (await h.config_read("02:01.0", 0)).status
        # An unclaimed posted write: the dummy's UR stays inside the application.
        await h.mem_write32(0xC000_0000, 1)
        out["unclaimed_read"] = (await h.mem_read32(0xC000_0000))
        return out

    res = run_ok(scenario, vnet_platform(num_ep=1))
    assert res.result == {"type0_bus5": ("SC", 0x10F11AF4), "type0_dev1": "UR", "dsp_beyond_n": "UR",
                          "ep_without_bus": "UR", "ep": 0x10411AF4, "ep_dev1": "UR", "unclaimed_read": 0xFFFFFFFF}
    (posted,) = res.events("posted_ur_completed_internally")
    assert posted["type"] == "MWr"
    # No completion for the posted write went up the host link: the only Cpls up are the
    # config completions and the UR of the memory read.
    cpls = [e for e in res.events("tlp", path="link_host", dir="up") if e["type"] == "Cpl" and e["status"] == "UR"]
    assert len(cpls) == 5  # type0_dev1, dsp_beyond_n, ep_without_bus, ep_dev1, unclaimed_read
    assert "find_device_by_bdf: matched EP[0] for bus 0x02" in msgs(res)


def test_bus_renumbering_moves_the_endpoint_and_invalidates_its_cache_entry():
    async def scenario(sim):
        h = sim.host
        await number_buses(sim)
        before = await h.config_read32("02:00.0", 0)
        await h.config_write32(DSP0, 0x18, 0x00070701)
        old = await h.config_read("02:00.0", 0)
        new = await h.config_read32("07:00.0", 0)
        return before, old.status, new

    res = run_ok(scenario, vnet_platform(num_ep=1))
    assert res.result == (0x10411AF4, "UR", 0x10411AF4)
    log = msgs(res)
    assert "DSP[0] bus config: P=01 S=07 Sub=07 (was: S=02 Sub=02)" in log
    assert "Invalidating BDF cache for EP on old bus 0x02" in log
    assert "VNet pf_index=0: BDF reassigned 02:00.0 -> 07:00.0" in log
    assert log.index("VNet pf_index=0: first probed at 02:00.0 (transient)") < log.index(
        "VNet pf_index=0: BDF reassigned 02:00.0 -> 07:00.0")
