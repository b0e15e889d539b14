"""The application's latent hazard (docs/vnet.md), reproduced and caught.

Two endpoints in static mode: probing endpoint 1, the driver's first control request makes the
worker sleep 400 ms (the one-time delay of a controller whose data queue pairs are deferred).
At that moment, a fuzzing host writes device_status = 0 to endpoint 0 twice in a row:

  1. the first write starts a reset: the status is held at 0x40 and a CONTROLLER_CLEANUP is
     queued, behind the sleeping worker;
  2. the second write, while that cleanup is still queued, bumps the reset generation (the
     queued cleanup is now stale) and makes the status callback only re-assert 0x40, queuing
     nothing;
  3. when the worker wakes, it skips the stale cleanup, and reset_status_state stays HELD.

The host reads 0x40 for ever. The liveness invariant "reset_hold_never_released" names the
hazard at the instant the only cleanup is skipped; the scenario declares that violation
expected, so the run passes while the log shows it. Linux never writes 0 twice like this; a
fuzzing host does, and this is the kind of bug the simulator exists to find."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import VirtioNet, virtio_net_devices
from dpusim.drivers.virtio_regs import VIRTIO_PCI_COMMON_STATUS
from dpusim.units import ms

PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {"num-ep": 2, "hotplug-mode": 0, "max-queue-pairs": 8}},
}
WATCH_MS = 1000


async def scenario(sim):
    sim.expect_violation("reset_hold_never_released", 1)
    pci = await pci_host_probe(sim)
    dev0, dev1 = virtio_net_devices(pci)
    ep0 = await VirtioNet(sim, pci, dev0).probe()
    worker_asleep = sim.wait_event("log", path="vnet.worker",
                                   msg="ctrl_req received: cls=4, cmd=0, controller=controller@ep1")
    probe1 = sim.spawn(VirtioNet(sim, pci, dev1).probe(), "probe_ep1")
    await worker_asleep
    status_reg = ep0.common + VIRTIO_PCI_COMMON_STATUS
    await sim.host.mem_write8(status_reg, 0)
    await sim.host.mem_write8(status_reg, 0)
    sim.log("fuzzing host wrote device_status=0 twice to 02:00.0", path="host.fuzz")
    # Linux's reset poll, given a full second: the status never leaves 0x40.
    reads = []
    for _ in range(WATCH_MS):
        reads.append(await sim.host.mem_read8(status_reg))
        await sim.sleep(ms(1))
    await probe1
    stuck = all(r == 0x40 for r in reads)
    print(f"after two resets 02:00.0 read 0x40 for {len(reads)} polls over {WATCH_MS} ms: "
          f"{'stuck (hazard reproduced)' if stuck else 'released'}")
    return {"polls": len(reads), "stuck": stuck, "last": reads[-1]}
