"""A device reset while the application's background MQ start is running.

One endpoint (-n 1 -H 0 -q 8), a host with four CPUs: the driver's VQ_PAIRS_SET(4) is answered
OK at once and a background thread starts queue pairs 1..3, one VQ-start step after another.
The reset is placed exactly: when queue pair 1's transmit queue has started (the event of VQ3
reaching STARTED), the driver writes device_status = 0. The application raises the cancel flag
and a new reset generation, holds the status at 0x40 and queues the controller cleanup; the MQ
thread sees the flag before queue pair 2 and logs the cancel; the cleanup, which waits for it,
tears the controller down; the next status poll releases the hold and reads 0; the driver
probes again, and this time all four queue pairs come up and pass traffic. Nothing of the old
generation runs after the reset: queued items of it are skipped as stale."""
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.virtio_net import VirtioNet, ethernet_frame, virtio_net_devices
from dpusim.units import s

PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 0, "max-queue-pairs": 8}},
    "wires": [{"a": "ep0", "b": "loopback"}],
}


async def loop_frames(net):
    frames = [ethernet_frame(b"\x02\x00\x00\x00\x00\x02", net.mac, 0x88B5, bytes([qp]) * 80)
              for qp in range(net.curr_queue_pairs)]
    for qp, frame in enumerate(frames):
        await net.send(frame, qp=qp)
    got = await net.recv(len(frames), timeout_ps=s(1))
    assert sorted(f for _, f in got) == sorted(frames), "frames differ after the loopback"
    return len(frames)


async def scenario(sim):
    pci = await pci_host_probe(sim)
    (dev,) = virtio_net_devices(pci)
    # The race, placed on the model's own event rather than a tuned sleep.
    qp1_started = sim.wait_event("vq_state", path="ep0", vq=3, state="STARTED")
    net = await VirtioNet(sim, pci, dev).probe()
    await qp1_started
    sim.log("host resets the device while the MQ start runs", path="host.virtio_net")
    t_reset = sim.now
    polls = await net.reset()
    t_released = sim.now
    # The driver probes again on the reset device.
    net = await VirtioNet(sim, pci, dev).probe()
    await net.open()
    mq_done = sim.wait_event("log", path="vnet.mq1", msg="Background thread: MQ start QPs 1 -> 4 completed successfully")
    await mq_done
    n = await loop_frames(net)
    print(f"reset at {t_reset / 1e9:.3f} ms held the status at 0x40 for {polls} polls "
          f"({(t_released - t_reset) / 1e9:.3f} ms); re-probed with {net.curr_queue_pairs} queue pairs, "
          f"{n} frames passed")
    return {"reset_ps": t_reset, "released_ps": t_released, "polls": polls, "queue_pairs": net.curr_queue_pairs}
