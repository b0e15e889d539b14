"""The PCI core's driver binding (include/linux/pci.h struct pci_driver, drivers/pci/pci-driver.c):
each driver declares the (vendor, device) pairs it takes, its id table, and adds itself to the
table here when its module is imported, as module_pci_driver registers a driver at module load;
the drivers built into the host are imported by enumeration (dpusim.drivers.pci), so every
table is in place before the first function is matched.

A function is matched on its (vendor, device) (pci_match_id); bind() runs the matching driver's
probe and records the driver on the function (PciDev.driver, Linux's dev->driver); a function
no driver takes stays unbound, and bind() says so in the log ("... no driver: left unbound").
probe_all() binds, in BDF order as Linux's serial probing does, every endpoint one driver takes,
or every endpoint. Bridges are left alone: Linux's portdrv binds them by class, not by id.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class PciDriver:
    """struct pci_driver: a name, an id table of (vendor, device) pairs, and `probe`, a coroutine
    function (sim, pci, dev, **options) returning the bound driver object (which has remove())."""
    name: str
    id_table: tuple
    probe: object

    def matches(self, dev):
        return (dev.vendor, dev.device) in self.id_table


_drivers = {}   # name -> PciDriver, in registration order
_by_id = {}     # (vendor, device) -> PciDriver


def pci_register_driver(driver):
    """Adds `driver` to the table; returns it. A second driver of the same name, or one claiming
    a (vendor, device) another driver has, is refused."""
    if driver.name in _drivers:
        raise ValueError(f"PCI driver {driver.name!r} is already registered")
    for vendor, device in driver.id_table:
        other = _by_id.get((vendor, device))
        if other is not None:
            raise ValueError(f"PCI driver {driver.name!r}: [{vendor:04x}:{device:04x}] is taken by {other.name!r}")
    _drivers[driver.name] = driver
    for pair in driver.id_table:
        _by_id[pair] = driver
    return driver


def pci_unregister_driver(driver):
    """Takes `driver` out of the table (functions it bound stay bound)."""
    if _drivers.get(driver.name) is not driver:
        raise ValueError(f"PCI driver {driver.name!r} is not registered")
    del _drivers[driver.name]
    for pair in driver.id_table:
        del _by_id[pair]


def registered():
    """The registered drivers, in registration order."""
    return list(_drivers.values())


def pci_match_device(dev):
    """The registered driver whose id table has the function's (vendor, device), or None."""
    return _by_id.get((dev.vendor, dev.device))


def endpoints(pci, driver=None):
    """The enumerated functions that are not bridges, in BDF order: all of them, or those
    `driver` takes."""
    devs = (d for d in pci.devices() if not d.is_bridge and (driver is None or driver.matches(d)))
    return sorted(devs, key=lambda d: d.rid)


async def bind(sim, pci, dev, driver=None, enable=False, **options):
    """device_attach: the probe(sim, pci, dev, **options) of `driver`, else of the registered
    driver that matches, after pci_enable_device + pci_set_master when `enable` (a function
    hot-added after boot; at boot pci_host_probe enabled them all). Returns the bound driver
    object, also kept as dev.driver, or None when no driver takes the function (logged on
    host.pci)."""
    driver = driver or pci_match_device(dev)
    if driver is None:
        sim.log(f"pci 0000:{dev.bdf}: [{dev.vendor:04x}:{dev.device:04x}] no driver: left unbound", path="host.pci")
        return None
    if enable:
        await pci.enable_device(dev)
    dev.driver = await driver.probe(sim, pci, dev, **options)
    return dev.driver


async def probe_all(sim, pci, driver=None, **options):
    """Binds, one after another in BDF order, every endpoint `driver` takes (its probe gets
    `options`), or with no driver every endpoint (the ones no driver takes are left unbound
    and said so). Returns the bound driver objects in that order."""
    if driver is None and options:
        raise TypeError(f"probe_all: options {sorted(options)} are one driver's: name the driver")
    out = []
    for dev in endpoints(pci, driver):
        bound = await bind(sim, pci, dev, driver, **options)
        if bound is not None:
            out.append(bound)
    return out


__all__ = ["PciDriver", "pci_register_driver", "pci_unregister_driver", "registered", "pci_match_device",
           "endpoints", "bind", "probe_all"]
