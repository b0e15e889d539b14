"""SR-IOV bring-up, the DOCA guide's example `-H 0 -n 4 --total-vfs 4 -q 4`: four PFs with four
VFs each, four queue pairs.

The host enumerates the switch (ARI Forwarding Enable on each DSP above a PF with the ARI
capability, iov.c's sriov_init on each PF: System Page Size, the VF BARs sized and given
4 x 32 KiB in the port's prefetchable window), probes the four PFs with virtio_net and loops
frames through each, checked byte for byte. Then `echo 4 > sriov_numvfs` on every PF in turn:
NumVFs 4, VF Enable | VF MSE in one write, the application's worker starts the PF's four VF
slots, Linux waits its 100 ms and adds each VF (functions 1..4 of the PF's bus, 1af4:1041 from
the PF's capability since a VF's own IDs read FFFFh, its BAR the PF's VF BAR + i x 32 KiB, its
capabilities walked: FLR in Device Capabilities, 2 x 4 + 2 MSI-X vectors). The PFs pass traffic
again with their VFs enabled. Then virtio_net binds every VF in BDF order: FEATURES_OK has the
worker create the VF's offload engine, its 9 VQs and its CVQ IO context, DRIVER_OK starts and
enables it, and the driver's VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET goes through the VF's CVQ. Every
VF loops frames on each of its queue pairs through its own wire end (`ep<i>.vf<j>`), checked
byte for byte, its DMA and MSI-X writes carrying its own Requester ID. The application's log
shows the guide's 7.7.7 sequence for each VF (docs/vnet.md, SR-IOV)."""
from dpusim.drivers import sriov
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.pci_regs import PCI_CAP_ID_EXP, PCI_CAP_ID_MSIX, PCI_EXP_DEVCAP, PCI_EXP_DEVCAP_FLR, PCI_MSIX_FLAGS
from dpusim.drivers.virtio_net import VirtioNet, ethernet_frame, probe_all
from dpusim.units import s

NUM_EP, TOTAL_VFS, QPS = 4, 4, 4
PLATFORM = {
    "host": {"cpus": 4},
    "topology": {"family": "vnet", "options": {"num-ep": NUM_EP, "hotplug-mode": 0, "max-queue-pairs": QPS,
                                               "total-vfs": TOTAL_VFS}},
    "wires": [{"a": f"ep{i}", "b": "loopback"} for i in range(NUM_EP)]
    + [{"a": f"ep{i}.vf{j}", "b": "loopback"} for i in range(NUM_EP) for j in range(TOTAL_VFS)],
}
GUIDE_LINES = [  # the guide's 7.7.7 for PF 0 / VF 0
    "SR-IOV: dynamic SR-IOV supported (max_total_vfs=256, pool_size=16)",
    "SR-IOV: pool reserved range [0, 4)",
    "SR-IOV: PF representor created with VF range [0, 4) (vf_num_msix=10, vf_num_db=10)",
    "SR-IOV: opened all 4 VF reps for this PF",
    "SR-IOV VFE: 0 -> 1 (NumVFs=4, TotalVFs=4)",
    "SR-IOV: VF[vf_index=0] tlp_dev started",
    "SR-IOV VFE 0->1 fan-out: 4/4 slots started (0 failed)",
    "SR-IOV: VF[slot=0, vf_index=0] FEATURES_OK - queueing engine bring-up (mq=1)",
    "SR-IOV: VF[vf_index=0] offload engine created (idle, 9 VQs, MTU=1500)",
    "SR-IOV: VF[vf_index=0] engine representor: vhca_id=0x0100 ifindex=1000 (add to OVS bridge for RX)",
    "SR-IOV: VF[vf_index=0] created 4 queue pair(s) + CVQ",
    "SR-IOV: VF[vf_index=0] CVQ IO context started",
    "SR-IOV: VF[slot=0, vf_index=0] DRIVER_OK - queueing engine enable",
    "SR-IOV: VF[vf_index=0] datapath operational (engine enabled, 4 queue pair(s))",
]


async def traffic(sim, net, tag):
    sent = [ethernet_frame(b"\x02\x00\x00\x00\x00\x01", net.mac, 0x88B5, bytes([tag, qp, k]) * (30 + 20 * k))
            for qp in range(net.curr_queue_pairs) for k in range(2)]
    for i, frame in enumerate(sent):
        await net.send(frame, qp=i // 2)
    got = await net.recv(len(sent), timeout_ps=s(2))
    assert sorted(f for _, f in got) == sorted(sent), f"{net.bdf}: frames differ after the loopback"
    return len(sent)


async def check_vf(sim, pci, pf, vf, i):
    """What Linux learned of VF i, and what its config space says."""
    h = sim.host
    exp, msix = vf.cap(PCI_CAP_ID_EXP), vf.cap(PCI_CAP_ID_MSIX)
    assert (vf.vendor, vf.device, vf.class_code) == (0x1AF4, 0x1041, 0x020000), vf
    assert vf.rid == pf.rid + 1 + i, vf.bdf
    assert await h.config_read32(vf.bdf, 0) == 0xFFFFFFFF
    assert (await h.config_read32(vf.bdf, exp + PCI_EXP_DEVCAP)) & PCI_EXP_DEVCAP_FLR
    assert (await h.config_read16(vf.bdf, msix + PCI_MSIX_FLAGS)) & 0x7FF == 2 * QPS + 1
    assert [b.base for b in vf.bars] == [pf.sriov.bars[0].base + i * 0x8000]
    for b in range(6):
        assert await h.config_read32(vf.bdf, 0x10 + 4 * b) == 0, f"{vf.bdf} BAR{b}"


async def scenario(sim):
    pci = await pci_host_probe(sim)
    nets = await probe_all(sim, pci)
    for net in nets:
        await net.open()
    before = await sim.gather(*(traffic(sim, net, 1) for net in nets))
    pfs = [net.dev for net in nets]
    vfs = {}
    for pf in pfs:  # echo 4 > /sys/bus/pci/devices/<pf>/sriov_numvfs
        vfs[pf.bdf] = await sriov.sriov_numvfs(pci, pf, TOTAL_VFS)
        for i, vf in enumerate(vfs[pf.bdf]):
            await check_vf(sim, pci, pf, vf, i)
    after = await sim.gather(*(traffic(sim, net, 2) for net in nets))
    vf_nets = []
    for pf in pfs:  # virtio_net binds each VF, in BDF order
        for vf in vfs[pf.bdf]:
            await pci.enable_device(vf)
            vf_nets.append(await VirtioNet(sim, pci, vf).probe())
    for net in vf_nets:
        await net.open()
    vf_frames = await sim.gather(*(traffic(sim, net, 3) for net in vf_nets))
    for pf in pfs:
        print(f"{pf.bdf}: VFs {' '.join(vf.bdf for vf in vfs[pf.bdf])}")
    print(f"{len(vf_nets)} VFs probed by virtio_net ({vf_nets[0].curr_queue_pairs} queue pairs each) and looped "
          f"{sum(vf_frames)} frames intact; PFs looped {sum(before)} + {sum(after)} frames intact; "
          f"done at {sim.now / 1e9:.3f} ms")
    return {"vfs": {k: [vf.bdf for vf in v] for k, v in vfs.items()}, "frames": before + after,
            "vf_frames": vf_frames, "vf_macs": [net.mac.hex(":") for net in vf_nets]}
