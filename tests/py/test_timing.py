"""Fabric timing end to end, against the formula of docs/timing.md computed here: each link
serialises (header + payload + 8) bytes × 8 × encoding / (rate × lanes), rounded up to a ps,
plus propagation; each switch hop is store-and-forward plus the traversal latency."""
from fractions import Fraction
import math

import pytest

from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers import testep as tep
from dpusim.testing import run_ok

RATES = {1: (2500, Fraction(10, 8)), 2: (5000, Fraction(10, 8)), 3: (8000, Fraction(130, 128)),
         4: (16000, Fraction(130, 128)), 5: (32000, Fraction(130, 128))}


def ser(nbytes, gen, width):
    mtps, enc = RATES[gen]
    return math.ceil(Fraction(nbytes * 8) * enc * 10**6 / (mtps * width))


@pytest.mark.parametrize("host, dsp", [((1, 1), (1, 1)), ((4, 16), (3, 4)), ((5, 8), (2, 2))])
def test_config_read_round_trip_time(host, dsp):
    doc = {"topology": {"endpoints": 1},
           "timing": {"link.host.gen": host[0], "link.host.width": host[1],
                      "link.dsp.gen": dsp[0], "link.dsp.width": dsp[1]}}

    async def scenario(sim):
        await pci_host_probe(sim)
        t0 = sim.now
        cpl = await sim.host.config_read("02:00.0", 0)
        c = sim.cost
        prop, trav, svc = c("link.propagation_ps"), c("switch.traversal_ps"), c("test_endpoint.service_ps")
        # CfgRd: 12 B header, no data; CplD: 12 B header + 4 B data.
        expect = (ser(20, *host) + prop + trav + ser(20, *dsp) + prop + svc
                  + ser(24, *dsp) + prop + trav + ser(24, *host) + prop)
        assert cpl.time_ps - t0 == expect

    run_ok(scenario, doc)


def test_4kib_host_write_pipelines_through_the_switch():
    doc = {"topology": {"endpoints": 1}, "timing": {"link.host.gen": 1, "link.host.width": 1,
                                                     "link.dsp.gen": 1, "link.dsp.width": 1}}

    async def scenario(sim):
        pci = await pci_host_probe(sim)
        dev = pci.find("02:00.0")
        t0 = sim.now
        await sim.host.mem_write(tep.bar(dev, 2), bytes(4096))
        sent = sim.now
        await sim.sleep(10**7)  # let the last TLPs reach the endpoint
        return t0, sent

    res = run_ok(scenario, doc)
    t0, sent = res.result
    # BAR2 lies above 4 GiB (4DW header, 16 B); host Max_Payload_Size 256: 16 MWr of 280 bytes.
    s = ser(16 + 256 + 8, 1, 1)
    assert sent - t0 == 16 * s
    writes = [e for e in res.events("tlp", path="link_dsp0", type="MWr") if e["time_ps"] >= t0]
    assert len(writes) == 16
    # Equal link speeds: each TLP crosses the switch as soon as it has fully arrived.
    prop, trav = 2000, 100000
    for k, e in enumerate(writes):
        assert e["tx_ps"] == t0 + (k + 1) * s + prop + trav
        assert e["rx_ps"] == t0 + (k + 2) * s + 2 * prop + trav
