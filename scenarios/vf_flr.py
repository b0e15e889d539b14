"""A function-level reset of one VF under traffic (static mode, one PF with four VFs, four
queue pairs), its siblings and the PF passing traffic meanwhile.

After `echo 4 > sriov_numvfs`, virtio_net binds every VF (its engine created at FEATURES_OK's
stage, enabled at DRIVER_OK's), and the PF and every VF stream frames through their own
loopbacks in rounds of one frame per queue pair, 10 ms apart. VF 1 gets an FLR as Linux's
pci_reset_function does it: save, Command = INTx Disable, Transactions Pending checked,
Initiate FLR. The application resets the VF's config image and MSI-X table at once, quiesces
its engine (none of its DMA continues) and queues VF_FLR_RESET, whose worker destroys the
engine: the frames it held are dropped and counted, and so are the frames that reach the VF's
wire end with no engine. A second Initiate FLR, written while the worker has not finished, is
coalesced (`FLR coalesced`). Linux waits its 100 ms, finds the VF ready and restores it. Of VF
1's burst, every frame its engine transmitted is either in its old receive ring or counted
dropped by the reset; the rest never left its transmit ring. The
siblings' and the PF's frames all come back intact (counted), their Command registers are
untouched, and virtio_net probes VF 1 again, which loops its frames again byte for byte."""
from dpusim.drivers import sriov
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.pci_regs import PCI_CAP_ID_EXP, PCI_EXP_DEVCTL, PCI_EXP_DEVCTL_BCR_FLR
from dpusim.drivers.pcie_flr import pcie_flr
from dpusim.drivers.virtio_net import VirtioNet, ethernet_frame, probe_all
from dpusim.units import ms, s
from dpusim.vnet import vnet

NUM_VFS, TARGET = 4, 1
PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 0, "max-queue-pairs": 4,
                                               "total-vfs": NUM_VFS}},
    "wires": [{"a": "ep0", "b": "loopback"}] + [{"a": f"ep0.vf{j}", "b": "loopback"} for j in range(NUM_VFS)],
}
ROUNDS = 12
BURST = 8  # rounds the reset VF posts just before its FLR


def round_frames(net, tag, r):
    return [ethernet_frame(b"\x02\x00\x00\x00\x00\x01", net.mac, 0x88B5, bytes([tag, r, qp]) * 40)
            for qp in range(net.curr_queue_pairs)]


async def stream(sim, net, tag):
    """Frames in rounds of one per queue pair, 10 ms apart, each round checked byte for byte."""
    total = 0
    for r in range(ROUNDS):
        sent = round_frames(net, tag, r)
        for qp, frame in enumerate(sent):
            await net.send(frame, qp=qp)
        got = await net.recv(len(sent), timeout_ps=s(1))
        assert sorted(f for _, f in got) == sorted(sent), f"{net.bdf} round {r}: frames differ"
        total += len(sent)
        await sim.sleep(ms(10))
    return total


async def duplicate_flr(sim, vf, first):
    """A second Initiate FLR 1 ms after the first, inside the application's reset window."""
    exp = vf.cap(PCI_CAP_ID_EXP)
    await first
    await sim.sleep(ms(1))
    await sim.host.config_write16(vf.bdf, exp + PCI_EXP_DEVCTL, PCI_EXP_DEVCTL_BCR_FLR)


async def scenario(sim):
    pci = await pci_host_probe(sim)
    (net,) = await probe_all(sim, pci)
    await net.open()
    pf = net.dev
    vfs = await sriov.sriov_numvfs(pci, pf, NUM_VFS)
    vf_nets = []
    for vf in vfs:
        await pci.enable_device(vf)
        vf_nets.append(await VirtioNet(sim, pci, vf).probe())
        await vf_nets[-1].open()
    target = vfs[TARGET]
    first = sim.wait_event("log", path="vnet.main", msg=f"SR-IOV: VF[slot={TARGET}, vf_index={TARGET}] FLR - config "
                                                        "space reset, queueing VF_FLR_RESET")
    siblings = [sim.spawn(stream(sim, n, 1 + j)) for j, n in enumerate([net] + vf_nets) if j != 1 + TARGET]
    dup = sim.spawn(duplicate_flr(sim, target, first))
    done = sim.wait_event("log", path="vnet.worker", msg=f"SR-IOV: VF[slot={TARGET}, vf_index={TARGET}] FLR complete")
    await sim.sleep(ms(30))
    old = vf_nets[TARGET]
    posted = [f for r in range(BURST) for f in round_frames(old, 9, r)]
    for i, frame in enumerate(posted):  # the victim's burst, in flight when the FLR comes
        await old.send(frame, qp=i % old.curr_queue_pairs)
    await pcie_flr(pci, target)
    await dup
    await sim.timeout(done, s(1))
    back = old.poll_rx()  # what reached the old rings before the reset
    assert all(f in posted for _, f in back)
    state = vnet(sim).vf_state(0, TARGET)
    assert not state["engine"] and state["active"], state
    sent, dropped = state["retired_tx"], state["frames_dropped_at_destroy"] + state["rx_dropped_without_engine"]
    assert sent == len(back) + dropped, f"VF {target.bdf}: {sent} transmitted, {len(back)} back, {dropped} dropped"
    assert dropped > 0 and sent <= len(posted), state
    commands = [await sim.host.config_read16(vf.bdf, 0x04) for vf in vfs]
    assert commands == [0x0004] * NUM_VFS, f"Command after the FLR: {commands}"
    counted = [await t for t in siblings]
    assert counted == [ROUNDS * net.curr_queue_pairs] * NUM_VFS, counted
    again = await VirtioNet(sim, pci, target).probe()  # virtio_net bound again after the reset
    await again.open()
    frames = round_frames(again, 10, 0)
    for qp, frame in enumerate(frames):
        await again.send(frame, qp=qp)
    got = await again.recv(len(frames), timeout_ps=s(1))
    assert sorted(f for _, f in got) == sorted(frames), f"{target.bdf}: frames differ after the re-probe"
    print(f"FLR of {target.bdf} under traffic, a duplicate coalesced: of {len(posted)} frames posted it had "
          f"transmitted {sent}, {len(back)} looped back, {dropped} dropped by the reset "
          f"({state['frames_dropped_at_destroy']} by its engine, {state['rx_dropped_without_engine']} with no "
          f"engine), {len(posted) - sent} left in its TX ring; PF and siblings looped {counted} frames intact; "
          f"Command {['%#06x' % c for c in commands]}; re-probed, {len(got)} frames looped again")
    return {"flr": target.bdf, "posted": len(posted), "sent": sent, "back": len(back), "dropped": dropped,
            "siblings": counted, "after": len(got)}
