"""The endpoint's BAR0 as the application emulates it (virtio 1.2 §4.1.4.3; docs/vnet.md): the
common-config register file and its rules, the net device config, what reads 0xFAFAFAFA, the
firmware-served MSI-X table."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import virtio_net_devices
from dpusim.testing import run_ok
from vnet_util import app_log, msgs, vnet_platform


async def bar0(sim):
    pci = await pci_host_probe(sim)
    (dev, *_) = virtio_net_devices(pci)
    return next(b.base for b in dev.bars if b.index == 0)


def test_common_config_reset_values_and_queue_window():
    async def scenario(sim):
        b = await bar0(sim)
        h = sim.host
        out = {"status": await h.mem_read8(b + 0x14), "df0": await h.mem_read32(b + 0x04),
               "numq": await h.mem_read16(b + 0x12), "msix": await h.mem_read16(b + 0x10),
               "gen": await h.mem_read8(b + 0x15), "qsel": await h.mem_read16(b + 0x16),
               "q0": [await h.mem_read16(b + off) for off in (0x18, 0x1A, 0x1C, 0x1E)]}
        await h.mem_write32(b + 0x00, 1)
        out["df1"] = await h.mem_read32(b + 0x04)
        await h.mem_write32(b + 0x00, 2)
        out["df2"] = await h.mem_read32(b + 0x04)
        await h.mem_write16(b + 0x16, 16)
        out["q16"] = [await h.mem_read16(b + off) for off in (0x18, 0x1A, 0x1C, 0x1E)]
        await h.mem_write16(b + 0x16, 17)
        out["q17"] = [await h.mem_read16(b + off) for off in (0x18, 0x1A, 0x1C, 0x1E)]
        return out

    res = run_ok(scenario, vnet_platform())
    assert res.result == {"status": 0x40, "df0": 0x00431829, "numq": 17, "msix": 0xFFFF, "gen": 1, "qsel": 0,
                          "q0": [1024, 0xFFFF, 0, 0], "df1": 0x80000003, "df2": 0,
                          "q16": [1024, 0xFFFF, 0, 16], "q17": [0, 0, 0, 0]}
    assert msgs(res, level="info").count("VIRTIO_F_VERSION_1 now visible to driver (bit 32)") == 1


def test_net_config_of_each_endpoint():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        out = []
        for dev in virtio_net_devices(pci):
            b = next(x.base for x in dev.bars if x.index == 0)
            out.append([await sim.host.mem_read32(b + 0x200 + off) for off in range(0, 24, 4)])
        return out

    res = run_ok(scenario, vnet_platform(num_ep=2, mtu=9000, speed=25000, duplex=0))
    # mac 52:54:00:12:34:56(+i); status LINK_UP; max pairs 8; mtu; speed; duplex, rss key 40,
    # indirection table 128; supported hash types 0x3F.
    assert res.result == [[0x12005452, 0x00015634, 0x23280008, 25000, 0x00802800, 0x3F],
                          [0x12005452, 0x00015734, 0x23280008, 25000, 0x00802800, 0x3F]]


def test_offsets_the_app_does_not_emulate_read_fafafafa_with_its_error():
    async def scenario(sim):
        b = await bar0(sim)
        h = sim.host
        return {"isr": await h.mem_read8(b + 0x100), "0x300": await h.mem_read32(b + 0x300),
                "past_struct": await h.mem_read8(b + 0x215), "last_field": await h.mem_read32(b + 0x214)}

    res = run_ok(scenario, vnet_platform())
    assert res.result == {"isr": 0xFA, "0x300": 0xFAFAFAFA, "past_struct": 0xFA, "last_field": 0x3F}
    assert msgs(res, level="error") == [
        "mmio read - unsupported virtio bar offset 0x100",
        "mmio read - unsupported virtio bar offset 0x300",
        "mmio read - offset 0x215 + 4 bytes (1DW) exceeds struct boundary (size: 24)",
    ]


def test_a_read_only_field_in_a_dw_write_rolls_back_the_whole_dw():
    async def scenario(sim):
        b = await bar0(sim)
        h = sim.host
        await h.mem_write32(b + 0x10, 0x00120000)  # config_msix_vector 0, num_queues 0x12: RO
        after_rollback = await h.mem_read32(b + 0x10)
        await h.mem_write16(b + 0x10, 0x0000)      # config_msix_vector alone
        vector = await h.mem_read16(b + 0x10)
        await h.mem_write32(b + 0x14, 0x00000000)  # status 0 with generation 0: rolled back
        status = await h.mem_read8(b + 0x14)
        return after_rollback, vector, status

    res = run_ok(scenario, vnet_platform())
    assert res.result == (0x0011FFFF, 0, 0x40)
    assert msgs(res, level="error") == ["pci_cfg: attempt to overwrite RO field: ROLLBACK"] * 2


def test_mmio_lengths_and_writes_outside_the_registers():
    async def scenario(sim):
        b = await bar0(sim)
        h = sim.host
        three = await h.send_tlp("MRd", address=b, length=3, first_be=0xF, last_be=0xF)
        await h.mem_write32(b + 0x300, 5)
        await h.send_tlp("MWr", data=bytes(12), address=b, length=3, first_be=0xF, last_be=0xF)
        await h.mem_read8(b + 0x14)  # a read after the posted writes: they have been served
        return three.status

    res = run_ok(scenario, vnet_platform())
    assert res.result == "UR"
    assert msgs(res, level="error") == ["unsupported read length 3", "mmio write drop - unsupported virtio bar offset 0x300",
                                        "unsupported write length 3"]


def test_msix_table_and_pba_are_served_by_firmware_not_the_app():
    async def scenario(sim):
        b = await bar0(sim)
        h = sim.host
        await h.mem_write32(b + 0x2000 + 16 * 5 + 8, 0x1234)
        entry = [await h.mem_read32(b + 0x2000 + 16 * 5 + off) for off in (0, 4, 8, 12)]
        pba = await h.mem_read64(b + 0x3000)
        return entry, pba

    res = run_ok(scenario, vnet_platform())
    assert res.result == ([0, 0, 0x1234, 1], 0)
    assert not [m for _, _, lv, m in app_log(res) if lv == "error"]
    # They crossed the DSP link to the endpoint's firmware and never queued on PE1.
    assert len(res.events("tlp", path="link_dsp0", dir="down", type="MRd")) == 5
