"""The host's driver id table (dpusim.drivers.pci_driver): a function binds the driver whose
(vendor, device) pairs include its own, at boot (pci_host_probe(probe=True)) and through the
one probe_all; a function no driver takes stays unbound and the log says so."""
import pytest

from dpusim.drivers import pci_driver
from dpusim.drivers.ionic import IONIC_DRIVER, Ionic
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.pci_driver import PciDriver, pci_register_driver, pci_unregister_driver
from dpusim.drivers.testep import DEVICE_ID, VENDOR_ID
from dpusim.drivers.virtio_net import VIRTIO_NET_DRIVER
from dpusim.testing import run_ok

MIXED = {"topology": {"slots": [{"kind": "test"}, {"kind": "ionic"}]}}


class Dev:
    def __init__(self, vendor, device):
        self.vendor, self.device = vendor, device


@pytest.mark.python_only
def test_the_built_in_drivers_are_matched_on_vendor_and_device_only():
    assert [d.name for d in pci_driver.registered()][:2] == ["ionic", "virtio_net"]
    assert pci_driver.pci_match_device(Dev(0x1AF4, 0x1041)) is VIRTIO_NET_DRIVER
    assert pci_driver.pci_match_device(Dev(0x1DD8, 0x100A)) is IONIC_DRIVER
    assert pci_driver.pci_match_device(Dev(0x1AF4, 0x1000)) is None  # a transitional virtio-net: not taken
    assert pci_driver.pci_match_device(Dev(VENDOR_ID, DEVICE_ID)) is None


@pytest.mark.python_only
def test_a_second_driver_for_a_name_or_an_id_is_refused_naming_the_holder():
    with pytest.raises(ValueError, match=r"^PCI driver 'virtio_net' is already registered$"):
        pci_register_driver(PciDriver("virtio_net", ((0x1234, 0x0001),), None))
    with pytest.raises(ValueError, match=r"^PCI driver 'mine': \[1af4:1041\] is taken by 'virtio_net'$"):
        pci_register_driver(PciDriver("mine", ((0x1234, 0x0001), (0x1AF4, 0x1041)), None))
    assert pci_driver.pci_match_device(Dev(0x1234, 0x0001)) is None  # a refusal registers nothing
    mine = pci_register_driver(PciDriver("mine", ((0x1234, 0x0001),), None))
    try:
        assert pci_driver.pci_match_device(Dev(0x1234, 0x0001)) is mine
    finally:
        pci_unregister_driver(mine)
    assert pci_driver.pci_match_device(Dev(0x1234, 0x0001)) is None
    with pytest.raises(ValueError, match=r"^PCI driver 'mine' is not registered$"):
        pci_unregister_driver(mine)


@pytest.mark.python_only
def test_probe_all_of_every_driver_takes_no_options():
    with pytest.raises(TypeError, match=r"probe_all: options \['cpus'\] are one driver's: name the driver"):
        pci_driver.probe_all(None, None, cpus=2).send(None)


def test_boot_binds_each_endpoint_by_its_id_and_leaves_an_unknown_one_unbound_saying_so():
    async def scenario(sim):
        pci = await pci_host_probe(sim, probe=True)
        return [(d.bdf, type(d.driver).__name__ if d.driver else None) for d in pci_driver.endpoints(pci)]

    res = run_ok(scenario, MIXED)
    assert res.result == [("02:00.0", None), ("03:00.0", "Ionic")]
    unbound = [e["msg"] for e in res.events("log", path="host.pci") if "no driver" in e["msg"]]
    assert unbound == [f"pci 0000:02:00.0: [{VENDOR_ID:04x}:{DEVICE_ID:04x}] no driver: left unbound"]
    assert [e["step"] for e in res.events("ionic", bdf="03:00.0")] == ["probe", "lif_size", "probed"]
    # Nothing but enumeration touched the unbound function (below DSP 0): no access to its BARs.
    assert not [e for e in res.events("tlp", path="link_dsp0", dir="down") if e["type"] in ("MRd", "MWr")]
    assert [e for e in res.events("tlp", path="link_dsp1", dir="down") if e["type"] in ("MRd", "MWr")]


def test_a_drivers_probe_all_binds_its_own_functions_with_its_options():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        mine = pci_register_driver(PciDriver("tep", ((VENDOR_ID, DEVICE_ID),), _tep_probe))
        tep = await pci_driver.probe_all(sim, pci, mine, tag="x")
        nics = await pci_driver.probe_all(sim, pci, IONIC_DRIVER, ring_length=64)
        return tep, [(n.bdf, n.ring_length) for n in nics], isinstance(pci.find("03:00.0").driver, Ionic)

    res = run_ok(scenario, MIXED)
    assert res.result == ([("02:00.0", "x")], [("03:00.0", 64)], True)
    assert not [e for e in res.events("log", path="host.pci") if "no driver" in e["msg"]]


async def _tep_probe(sim, pci, dev, tag):
    return (dev.bdf, tag)
