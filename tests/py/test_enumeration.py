"""Enumeration as Linux does it, checked against the topology every test agrees on and against
each function's own config space read from C++."""
import random

import pytest

from dpusim.bdf import bdf, bdf_str
from dpusim.drivers.pci import MIB, MMIO32_BASE, MMIO64_BASE, pci_host_probe
from dpusim.drivers.testep import DEVICE_ID, VENDOR_ID
from dpusim.testing import run_ok


def check_tree(sim, pci, slots):
    """The topology of docs/architecture.md, and agreement with the functions' config space."""
    (usp,) = pci.root
    assert usp.bdf == "00:00.0" and usp.is_bridge
    n = len(slots)
    assert (usp.secondary, usp.subordinate) == (1, 1 + n)
    assert [d.bdf for d in usp.children] == [f"01:{i:02x}.0" for i in range(n)]
    p = sim.platform
    assert p.peek_config("switch.usp", 0x18) & 0xFFFFFF == 0 | 1 << 8 | (1 + n) << 16
    mem_cursor, pref_cursor = MMIO32_BASE, MMIO64_BASE
    for i, dsp in enumerate(usp.children):
        assert (dsp.secondary, dsp.subordinate) == (2 + i, 2 + i)
        assert p.peek_config(f"switch.dsp{i}", 0x18) & 0xFFFFFF == 1 | (2 + i) << 8 | (2 + i) << 16
        # Linux's hot-plug reservations: 2 MiB memory and 2 MiB 64-bit prefetchable, even empty.
        assert dsp.mem_window == (mem_cursor, mem_cursor + 2 * MIB - 1)
        assert dsp.pref_window == (pref_cursor, pref_cursor + 2 * MIB - 1)
        mem_reg = p.peek_config(f"switch.dsp{i}", 0x20)
        assert mem_reg == (mem_cursor >> 16) | ((mem_cursor + 2 * MIB - 1) >> 16 & 0xFFF0) << 16
        assert p.peek_config(f"switch.dsp{i}", 0x28) == pref_cursor >> 32
        if slots[i]:
            (ep,) = dsp.children
            assert ep.bdf == f"{2 + i:02x}:00.0"
            assert (ep.vendor, ep.device) == (VENDOR_ID, DEVICE_ID)
            assert p.peek_config(f"ep{i}", 0) == DEVICE_ID << 16 | VENDOR_ID
            assert p.function_id(f"ep{i}") == bdf(ep.bdf)
            bars = {b.index: b for b in ep.bars}
            assert (bars[0].size, bars[0].is64, bars[0].prefetch) == (16 << 10, False, False)
            assert (bars[2].size, bars[2].is64, bars[2].prefetch) == (1 << 20, True, True)
            assert bars[0].base == mem_cursor and bars[2].base == pref_cursor
            assert p.peek_config(f"ep{i}", 0x10) == bars[0].base
            assert p.peek_config(f"ep{i}", 0x18) == (bars[2].base & 0xFFFFFFFF) | 0xC
            assert p.peek_config(f"ep{i}", 0x1C) == bars[2].base >> 32
            assert [c for c, _ in ep.caps] == [0x10, 0x11, 0x01]
            cmd = p.peek_config(f"ep{i}", 0x04) & 0xFFFF
            assert cmd & 0x6 == 0x6, "memory space and bus master enabled"
        else:
            assert dsp.children == []
        mem_cursor += 2 * MIB
        pref_cursor += 2 * MIB
    assert usp.mem_window == (MMIO32_BASE, MMIO32_BASE + 2 * MIB * n - 1)
    assert usp.pref_window == (MMIO64_BASE, MMIO64_BASE + 2 * MIB * n - 1)


@pytest.mark.parametrize("n", [1, 4, 32])
def test_enumeration_of_n_endpoints(n):
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        check_tree(sim, pci, [True] * n)
        assert sum(1 for _ in pci.devices()) == 1 + 2 * n

    run_ok(scenario, {"topology": {"endpoints": n}})


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_enumeration_of_a_seeded_sparse_population(seed):
    rng = random.Random(seed)
    n = rng.randint(6, 16)
    slots = [rng.random() < 0.5 for _ in range(n)]
    slots[rng.randrange(n)] = True

    async def scenario(sim):
        pci = await pci_host_probe(sim)
        check_tree(sim, pci, slots)
        eps = [d.bdf for d in pci.devices() if not d.is_bridge]
        assert eps == [f"{2 + i:02x}:00.0" for i, s in enumerate(slots) if s]

    run_ok(scenario, {"topology": {"slots": [{"kind": "test"} if s else None for s in slots]}})


def test_switch_ports_get_one_msi_vector_each():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        for i, dsp in enumerate(pci.root[0].children):
            cap = dsp.cap(0x05)
            flags = sim.platform.peek_config(f"switch.dsp{i}", cap) >> 16
            assert flags & 1, "MSI enabled"
            assert sim.platform.peek_config(f"switch.dsp{i}", cap + 4) == 0xFEE00000
            assert sim.platform.peek_config(f"switch.dsp{i}", cap + 12) & 0xFFFF == dsp.irqs[0]

    run_ok(scenario, {"topology": {"endpoints": 2}})


def test_the_old_name_enumerate_still_works_as_a_deprecated_alias():
    import dpusim.drivers.pci as pci

    with pytest.warns(DeprecationWarning, match="dpusim.drivers.pci.enumerate is deprecated: use pci_host_probe"):
        from dpusim.drivers.pci import enumerate as old
    assert old is pci_host_probe
    # It no longer shadows the builtin inside the module or under a star import.
    assert "enumerate" not in vars(pci)
    with pytest.raises(AttributeError, match="has no attribute 'enumerate_all'"):
        pci.enumerate_all
