"""`echo 0 > sriov_numvfs` with live VFs, and the PF's hot-unplug refused while VF Enable is set
(hotplug mode, one PF with two VFs).

The host boots with the slot empty; `plug 0` creates the PF, pciehp powers the slot on, the PF
is scanned (sriov_init) and virtio_net binds. `echo 2 > sriov_numvfs` starts both VF slots and
virtio_net binds both VFs (their engines come up on the worker: live VF datapaths), which loop
frames through their wire ends byte for byte. `unplug 0` is then REJECTED by the application
(VF Enable set, two live VF datapaths). `echo 0` removes the VFs, clears VF Enable | VF MSE
(the worker destroys both engines and stops both slots), and after Linux's 1 s NumVFs is 0. The VFs'
functions no longer answer, and `unplug 0` is accepted: the attention button, pciehp's
5 s, the PF's power-off and its destruction on the worker."""
from dpusim.drivers import sriov
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.pciehp import pciehp_probe_all
from dpusim.drivers.virtio_net import VirtioNet, ethernet_frame
from dpusim.units import s
from dpusim.vnet import vnet

PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {"num-ep": 1, "hotplug-mode": 1, "max-queue-pairs": 2,
                                               "total-vfs": 2}},
    "wires": [{"a": "ep0", "b": "loopback"}, {"a": "ep0.vf0", "b": "loopback"}, {"a": "ep0.vf1", "b": "loopback"}],
}


async def scenario(sim):
    pci = await pci_host_probe(sim)
    (slot,) = await pciehp_probe_all(sim, pci)
    bound = slot.wait_bound()
    assert (await sim.command("plug 0")).ok
    net = await sim.timeout(bound, s(2))
    pf = net.dev
    vfs = await sriov.sriov_numvfs(pci, pf, 2)
    looped = 0
    for vf in vfs:  # virtio_net binds each VF; its datapath loops frames
        await pci.enable_device(vf)
        drv = await VirtioNet(sim, pci, vf).probe()
        await drv.open()
        sent = [ethernet_frame(b"\x02\x00\x00\x00\x00\x01", drv.mac, 0x88B5, bytes([qp]) * 60)
                for qp in range(drv.curr_queue_pairs)]
        for qp, frame in enumerate(sent):
            await drv.send(frame, qp=qp)
        got = await drv.recv(len(sent), timeout_ps=s(1))
        assert sorted(f for _, f in got) == sorted(sent), f"{vf.bdf}: frames differ"
        looped += len(got)
    assert [vnet(sim).vf_state(0, j)["engine_enabled"] for j in range(2)] == [True, True]
    refused = await sim.command("unplug 0")
    assert refused.outcome == "REJECTED", refused
    assert refused.lines[-1].endswith("(VFE=1, 2 live VF datapath(s)); disable it on the host first"), refused.lines
    await sriov.sriov_numvfs(pci, pf, 0)
    gone = [(await sim.host.config_read(vf.rid, 0)).value for vf in vfs]
    assert gone == [0xFFFFFFFF] * 2, gone
    assert [vnet(sim).vf_state(0, j)["engine"] for j in range(2)] == [False, False]
    disabled = slot.wait_disabled()
    destroyed = sim.wait_event("log", path="vnet.worker", msg="Device destroyed successfully (delayed)")
    accepted = await sim.command("unplug 0")
    assert accepted.ok, accepted
    destroyed = await sim.timeout(destroyed, s(10))
    await sim.timeout(disabled, s(2))
    print(f"VFs {' '.join(vf.bdf for vf in vfs)} bound by virtio_net, {looped} frames looped intact")
    print(f"unplug 0 with VFs enabled -> {refused.outcome}: {refused.lines[-1]}")
    print(f"echo 0 -> VFs {' '.join(vf.bdf for vf in vfs)} gone; unplug 0 -> {accepted.outcome}, PF destroyed at "
          f"{destroyed['time_ps'] / 1e9:.3f} ms")
    return {"looped": looped, "refused": refused.outcome, "accepted": accepted.outcome, "destroyed_ps": destroyed["time_ps"]}
