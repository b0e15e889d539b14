"""SR-IOV on the virtio-net PFs (docs/vnet.md, SR-IOV): the host's enumeration with ARI and
sriov_init, `echo N > sriov_numvfs` fanning out every TotalVFs slot on the worker, the VFs'
config images at ARI functions, per-VF FLR with coalescing, `echo 0`, and the PF's hot-unplug
refused while VF Enable is set."""
import pytest

from dpusim.drivers import sriov
from dpusim.drivers.pci import pci_host_probe
from dpusim.drivers.pci_regs import (PCI_EXP_DEVCTL, PCI_EXP_DEVCTL2, PCI_EXP_DEVCTL_BCR_FLR, PCI_SRIOV_CTRL,
                                     PCI_SRIOV_CTRL_MSE, PCI_SRIOV_CTRL_VFE)
from dpusim.drivers.pcie_flr import pcie_flr
from dpusim.run import run
from dpusim.testing import run_ok
from dpusim.units import MS
from dpusim.drivers.virtio_net import VirtioNet, ethernet_frame, virtio_status_steps
from dpusim.units import S
from dpusim.vnet import vnet
from vnet_util import msgs, vnet_platform

EXP = 0x40    # the VirtIO image's PCI Express capability
DSP_EXP = 0x60


def pf_of(pci, i=0):
    return [d for d in pci.devices() if d.sriov is not None][i]


def log_times(res, prefix):
    return [e["time_ps"] for e in res.events("log") if e["msg"].startswith(prefix)]


def test_enumeration_sets_ari_forwarding_and_sizes_the_vf_bars():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        pf = pf_of(pci)
        dsp = pf.parent
        ctl2 = await sim.host.config_read32(dsp.bdf, DSP_EXP + PCI_EXP_DEVCTL2)
        bar = pf.sriov.bars[0]
        lo = await sim.host.config_read32(pf.bdf, 0x100 + 0x24)
        hi = await sim.host.config_read32(pf.bdf, 0x100 + 0x28)
        ctrl = await sim.host.config_read16(pf.bdf, 0x100 + PCI_SRIOV_CTRL)
        pref = dsp.pref_window
        return dict(ari=dsp.ari_enabled, ctl2=ctl2 & 0xFFFF, total=pf.sriov.total_vfs, offset=pf.sriov.offset,
                    stride=pf.sriov.stride, did=pf.sriov.vf_device, vf_size=bar.vf_size, reserved=bar.total,
                    programmed=(hi << 32 | lo & ~0xF) == bar.base, ctrl=ctrl,
                    inside=pref[0] <= bar.base and bar.base + bar.total - 1 <= pref[1],
                    ext=[c for c, _ in pf.ext_caps])

    res = run_ok(scenario, vnet_platform(num_ep=2, total_vfs=16, max_queue_pairs=4))
    assert res.result == dict(ari=True, ctl2=0x20, total=16, offset=1, stride=1, did=0x1041, vf_size=0x8000,
                              reserved=0x80000, programmed=True, ctrl=0x10, inside=True, ext=[0x10, 0x0E, 0x0D])
    assert [m for m in msgs(res, "vnet.main") if m.startswith("SR-IOV")][:5] == [
        "SR-IOV: dynamic SR-IOV supported (max_total_vfs=256, pool_size=32)",
        "SR-IOV: pool reserved range [0, 16)",
        "SR-IOV: PF representor created with VF range [0, 16) (vf_num_msix=10, vf_num_db=10)",
        "SR-IOV: opened all 16 VF reps for this PF",
        "SR-IOV: pool reserved range [16, 32)",
    ]


def test_without_total_vfs_nothing_changes_on_the_host_side():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        ep = next(d for d in pci.devices() if d.vendor == 0x1AF4 and d.device == 0x1041)
        return [ep.ext_caps, ep.sriov, ep.parent.ari_enabled, await sim.host.config_read32(ep.bdf, 0x100)]

    assert run_ok(scenario, vnet_platform(num_ep=1)).result == [[], None, False, 0]


def test_echo_n_fans_out_every_slot_and_the_vfs_answer_at_ari_functions():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        pf = pf_of(pci)
        vfe = sim.now
        vfs = await sriov.sriov_numvfs(pci, pf, 3)  # NumVFs 3: still every TotalVFs slot starts
        out = {"bdfs": [vf.bdf for vf in vfs], "vfe_ps": vfe}
        vf9 = (pf.rid & 0xFF00) | 9
        out["vf9"] = [await sim.host.config_read32(vf9, off) for off in (0x00, 0x04, 0x08, 0x10, 0x14, 0x2C)]
        out["devcap"] = await sim.host.config_read32(vf9, EXP + 4)
        out["msix"] = await sim.host.config_read16(vf9, 0x64 + 2)
        out["beyond"] = (await sim.host.config_read(pf.rid | 65, 0)).value  # function 65: no VF
        out["bars"] = [(b.index, b.base - pf.sriov.bars[0].base, b.size) for vf in vfs for b in vf.bars]
        return out

    res = run_ok(scenario, vnet_platform(num_ep=1, total_vfs=64, max_queue_pairs=4))
    r = res.result
    assert r["bdfs"] == ["02:00.1", "02:00.2", "02:00.3"]
    assert r["vf9"] == [0xFFFFFFFF, 0x00100000, 0x02000001, 0, 0, 0x00011AF4]
    assert r["devcap"] == 0x10008001
    assert r["msix"] == 9  # 2 x 4 + 2 vectors
    assert r["beyond"] == 0xFFFFFFFF
    assert r["bars"] == [(0, 0, 0x8000), (0, 0x8000, 0x8000), (0, 0x10000, 0x8000)]
    lines = msgs(res)
    assert "SR-IOV VFE: 0 -> 1 (NumVFs=3, TotalVFs=64)" in lines
    assert [m for m in lines if m.endswith("tlp_dev started")] == [
        f"SR-IOV: VF[vf_index={g}] tlp_dev started" for g in range(64)]
    assert "SR-IOV VFE 0->1 fan-out: 64/64 slots started (0 failed)" in lines
    (done,) = log_times(res, "SR-IOV VFE 0->1 fan-out")
    assert done - r["vfe_ps"] < 100 * MS  # all 64 slots answer before Linux's 100 ms wait ends


def test_functions_above_7_route_only_with_ari_forwarding_enable():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        pf = pf_of(pci)
        await sriov.sriov_numvfs(pci, pf, 10)
        dsp = pf.parent
        ctl2 = dsp.cap(0x10) + PCI_EXP_DEVCTL2
        out = []
        for ari in (0, 0x20):
            await sim.host.config_write16(dsp.bdf, ctl2, ari)
            out.append([(await sim.host.config_read(pf.rid | fn, 0x08)).value for fn in (7, 8, 10)])
        return out

    res = run_ok(scenario, vnet_platform(num_ep=1, total_vfs=10))
    assert res.result == [[0x02000001, 0xFFFFFFFF, 0xFFFFFFFF], [0x02000001, 0x02000001, 0x02000001]]


def test_vf_flr_resets_its_image_at_once_coalesces_a_duplicate_and_leaves_siblings_alone():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        pf = pf_of(pci)
        vfs = await sriov.sriov_numvfs(pci, pf, 4)
        for vf in vfs:
            await pci.enable_device(vf)
        target = vfs[1]
        await sim.host.config_write16(target.bdf, EXP + PCI_EXP_DEVCTL, 0x2000 | PCI_EXP_DEVCTL_BCR_FLR)
        right_after = await sim.host.config_read32(target.bdf, 0x04)
        await sim.host.config_write16(target.bdf, EXP + PCI_EXP_DEVCTL, PCI_EXP_DEVCTL_BCR_FLR)  # in the window
        done = sim.wait_event("log", path="vnet.worker", msg="SR-IOV: VF[slot=1, vf_index=1] FLR complete")
        await sim.timeout(done, 100 * MS)
        siblings = [await sim.host.config_read16(vf.bdf, 0x04) for vf in vfs]
        await pci.enable_device(target)
        await pcie_flr(pci, target)  # Linux's whole sequence, after the window: not coalesced
        return dict(right_after=right_after, siblings=siblings,
                    devctl=await sim.host.config_read16(target.bdf, EXP + PCI_EXP_DEVCTL),
                    cmd=await sim.host.config_read16(target.bdf, 0x04))

    res = run_ok(scenario, vnet_platform(num_ep=1, total_vfs=4))
    r = res.result
    assert r["right_after"] == 0x00100000  # Command back to 0 before the worker ran
    assert r["siblings"] == [0x0004, 0x0000, 0x0004, 0x0004]
    assert r["cmd"] == 0x0004 and r["devctl"] == 0  # pcie_flr restored what it saved
    lines = msgs(res)
    assert lines.count("SR-IOV: VF[slot=1, vf_index=1] FLR coalesced (reset already in progress)") == 1
    assert lines.count("SR-IOV: VF[slot=1, vf_index=1] FLR - config space reset, queueing VF_FLR_RESET") == 2
    assert lines.count("SR-IOV: VF[slot=1, vf_index=1] FLR complete") == 2
    assert [e["type"] for e in res.events("work_queued") if "VF" in e["type"]] == [
        "PCI_CFG_WORK_VF_FAN_OUT", "PCI_CFG_WORK_VF_FLR_RESET", "PCI_CFG_WORK_VF_FLR_RESET"]


def test_a_pf_reset_during_vf_bring_up_leaves_the_fan_out_alone():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        pf = pf_of(pci)
        base = pf.bars[0].base
        await sim.host.config_write16(pf.bdf, 0x100 + PCI_SRIOV_CTRL, PCI_SRIOV_CTRL_VFE | PCI_SRIOV_CTRL_MSE)
        await sim.host.mem_write8(base + 0x14, 0)  # device_status = 0: the PF's own virtio reset
        fan = sim.wait_event("log", path="vnet.worker", msg="SR-IOV VFE 0->1 fan-out: 8/8 slots started (0 failed)")
        await sim.timeout(fan, 200 * MS)
        return await sim.host.config_read32((pf.rid & 0xFF00) | 8, 0)

    res = run_ok(scenario, vnet_platform(num_ep=1, total_vfs=8))
    assert res.result == 0xFFFFFFFF  # VF 8 answers: its Vendor/Device IDs read FFFFh
    assert not [e for e in res.events("work_skipped") if "VF" in e.get("type", "")]


def test_echo_0_stops_every_slot_and_the_pf_unplug_is_refused_while_vfe_is_set():
    async def scenario(sim):
        from dpusim.drivers.pciehp import pciehp_probe_all
        pci = await pci_host_probe(sim)
        (slot,) = await pciehp_probe_all(sim, pci)
        bound = slot.wait_bound()
        assert (await sim.command("plug 0")).ok
        await sim.timeout(bound, 2_000 * MS)
        pf = pf_of(pci)
        await sriov.sriov_numvfs(pci, pf, 2)
        refused = await sim.command("unplug 0")
        await sriov.sriov_numvfs(pci, pf, 0)
        gone = (await sim.host.config_read((pf.rid & 0xFF00) | 1, 0)).value
        accepted = await sim.command("unplug 0")
        return refused.outcome, refused.lines, gone, accepted.outcome

    res = run_ok(scenario, vnet_platform(num_ep=1, hotplug_mode=1, total_vfs=2))
    outcome, lines, gone, accepted = res.result
    assert outcome == "REJECTED"
    assert lines[-1] == ("UNPLUG rejected for DSP[0]: SR-IOV active on its PF (VFE=1, 0 live "
                         "VF datapath(s)); disable it on the host first")
    assert gone == 0xFFFFFFFF
    assert accepted == "OK"
    assert "SR-IOV VFE 1->0: 2/2 slots stopped" in msgs(res)


def test_the_bringup_scenario_logs_the_guides_sequence_in_order():
    import os
    from dpusim.cli import load_scenario
    from dpusim.run import run

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    fn, platform = load_scenario(os.path.join(root, "scenarios", "sriov_bringup.py"))
    res = run(fn, platform)
    assert res.ok, res.describe()
    assert sum(len(v) for v in res.result["vfs"].values()) == 16
    lines = iter(msgs(res))
    expected = [
        "SR-IOV: dynamic SR-IOV supported (max_total_vfs=256, pool_size=16)",
        "SR-IOV: pool reserved range [0, 4)",
        "SR-IOV: PF representor created with VF range [0, 4) (vf_num_msix=10, vf_num_db=10)",
        "SR-IOV: opened all 4 VF reps for this PF",
        "SR-IOV VFE: 0 -> 1 (NumVFs=4, TotalVFs=4)",
        "SR-IOV: VF[vf_index=0] tlp_dev started",
        "SR-IOV VFE 0->1 fan-out: 4/4 slots started (0 failed)",
    ]
    assert all(any(m == want for m in lines) for want in expected)  # a subsequence, in order


def test_a_vf_comes_up_in_two_stages_through_the_aperture_and_logs_the_guides_sequence():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        pf = pf_of(pci)
        (vf,) = await sriov.sriov_numvfs(pci, pf, 1)
        await pci.enable_device(vf)
        base = vf.bars[0].base
        h = sim.host
        status = await virtio_status_steps(pci, vf, driver_ok=False)
        await sim.timeout(sim.wait_event("log", path="vnet.worker",
                                         msg="SR-IOV: VF[vf_index=0] CVQ IO context started"), 200 * MS)
        await h.mem_write8(status, 0x0F)  # DRIVER_OK
        up = await sim.timeout(sim.wait_event("log", path="vnet.worker", msg="SR-IOV: VF[vf_index=0] datapath "
                                              "operational (engine enabled, 8 queue pair(s))"), 1000 * MS)
        mac = bytes([await h.mem_read8(base + 0x200 + i) for i in range(6)])
        ctrl = (await h.mem_read(base + 0x200C, 4)).value  # the VF's MSI-X table: entry 0 masked
        state = vnet(sim).vf_state(0, 0)
        await h.mem_write8(status, 0)  # a device reset destroys the engine
        await sim.timeout(sim.wait_event("log", path="vnet.worker",
                                         msg="SR-IOV: VF[vf_index=0] engine destroyed (device reset)"), 100 * MS)
        return dict(status=await h.mem_read8(status), mac=mac.hex(":"), ctrl=ctrl, up=up["time_ps"], state=state,
                    after=vnet(sim).vf_state(0, 0))

    res = run_ok(scenario, vnet_platform(num_ep=1, total_vfs=1))
    assert res.result["mac"] == "52:54:00:12:34:57"  # base low16 0x3456 + num_ep 1 + vf_index 0
    assert res.result["ctrl"] == 1 and res.result["status"] == 0
    up, after = res.result["state"], res.result["after"]
    # Up: a real engine whose 17 VQs were created (the driver enabled none, so none started).
    assert (up["engine"], up["engine_enabled"], up["num_active_qps"], up["live_datapaths"]) == (True, True, 8, 1)
    assert up["vq_states"] == ["CREATED"] * 17 and up["rid"] == 0x0201
    assert (after["engine"], after["engine_enabled"], after["live_datapaths"], after["active"]) == (False, False, 0, True)
    lines = iter(msgs(res))
    expected = [
        "SR-IOV: dynamic SR-IOV supported (max_total_vfs=256, pool_size=1)",
        "SR-IOV: pool reserved range [0, 1)",
        "SR-IOV: PF representor created with VF range [0, 1) (vf_num_msix=18, vf_num_db=18)",
        "SR-IOV: opened all 1 VF reps for this PF",
        "SR-IOV VFE: 0 -> 1 (NumVFs=1, TotalVFs=1)",
        "SR-IOV: VF[vf_index=0] tlp_dev started",
        "SR-IOV VFE 0->1 fan-out: 1/1 slots started (0 failed)",
        "SR-IOV: VF[slot=0, vf_index=0] FEATURES_OK - queueing engine bring-up (mq=1)",
        "SR-IOV: VF[vf_index=0] offload engine created (idle, 17 VQs, MTU=1500)",
        "SR-IOV: VF[vf_index=0] engine representor: vhca_id=0x0100 ifindex=1000 (add to OVS bridge for RX)",
        "SR-IOV: VF[vf_index=0] created 8 queue pair(s) + CVQ",
        "SR-IOV: VF[vf_index=0] CVQ IO context started",
        "SR-IOV: VF[slot=0, vf_index=0] DRIVER_OK - queueing engine enable",
        "SR-IOV: VF[vf_index=0] datapath operational (engine enabled, 8 queue pair(s))",
    ]
    missing = [want for want in expected if not any(m == want for m in lines)]
    assert not missing, f"not in order in the log: {missing[0]}"


def test_an_flr_between_features_ok_and_its_stage_makes_the_stage_stale():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        pf = pf_of(pci)
        (vf,) = await sriov.sriov_numvfs(pci, pf, 1)
        await pci.enable_device(vf)
        await virtio_status_steps(pci, vf, driver_ok=False)
        await sim.host.config_write16(vf.bdf, EXP + PCI_EXP_DEVCTL, PCI_EXP_DEVCTL_BCR_FLR)
        await sim.timeout(sim.wait_event("log", path="vnet.worker", msg="SR-IOV: VF[slot=0, vf_index=0] FLR complete"),
                          100 * MS)
        return await sim.host.mem_read8(vf.bars[0].base + 0x14)

    res = run_ok(scenario, vnet_platform(num_ep=1, total_vfs=1))
    assert res.result == 0  # the FLR reset the VF's registers
    lines = msgs(res)
    assert "SR-IOV: VF[vf_index=0] stale bring-up stage 1 skipped (generation 2, now 3)" in lines
    assert not [m for m in lines if "offload engine created" in m]


def vf_platform(vfs=2, qps=2):
    doc = vnet_platform(num_ep=1, total_vfs=vfs, max_queue_pairs=qps)
    doc["wires"] += [{"a": f"ep0.vf{j}", "b": "loopback"} for j in range(vfs)]
    return doc


async def bind_vfs(sim, count):
    """echo count > sriov_numvfs, then virtio_net on each VF, opened."""
    pci = await pci_host_probe(sim)
    vfs = await sriov.sriov_numvfs(pci, pf_of(pci), count)
    nets = []
    for vf in vfs:
        await pci.enable_device(vf)
        nets.append(await VirtioNet(sim, pci, vf).probe())
        await nets[-1].open()
    return pci, vfs, nets


async def loop_frames(net, tag):
    sent = [ethernet_frame(b"\x02\x00\x00\x00\x00\x01", net.mac, 0x88B5, bytes([tag, qp, k]) * (20 + 30 * k))
            for qp in range(net.curr_queue_pairs) for k in range(3)]
    for i, frame in enumerate(sent):
        await net.send(frame, qp=i // 3)
    got = await net.recv(len(sent), timeout_ps=S)
    assert sorted(f for _, f in got) == sorted(sent), f"{net.bdf}: frames differ"
    return len(got)


def test_two_vfs_of_one_pf_pass_traffic_at_once_with_their_own_requester_ids():
    async def scenario(sim):
        pci, vfs, nets = await bind_vfs(sim, 2)
        counts = await sim.gather(*(loop_frames(n, j) for j, n in enumerate(nets)))
        return dict(counts=counts, macs=[n.mac.hex(":") for n in nets],
                    states=[vnet(sim).vf_state(0, j) for j in range(2)])

    res = run_ok(scenario, vf_platform())
    assert res.result["counts"] == [6, 6]
    assert res.result["macs"] == ["52:54:00:12:34:57", "52:54:00:12:34:58"]
    assert [(s["tx_frames"], s["rx_frames"]) for s in res.result["states"]] == [(6, 6), (6, 6)]
    tlps = [e for e in res.events("tlp") if e["path"] == "link_dsp0"]
    for vf in ("02:00.1", "02:00.2"):
        # Its DMA (ring reads, buffer writes) and its MSI-X writes go up the PF's link with its ID,
        # and the completions of its reads come back down to it.
        assert any(t["type"] == "MRd" and t["dir"] == "up" and t["requester"] == vf for t in tlps), vf
        assert any(t["type"] == "CplD" and t["dir"] == "down" and t["requester"] == vf for t in tlps), vf
        msis = [e for e in res.events("msi") if e["requester"] == vf]
        assert len(msis) >= 2, vf  # at least one per receive queue's used-ring update
    assert not list(res.events("unexpected_completion"))


def test_a_vfs_doorbells_reach_its_engine_only():
    async def scenario(sim):
        pci, vfs, nets = await bind_vfs(sim, 2)
        await sim.sleep(MS)  # the drivers' own kicks (open) have landed
        before = [vnet(sim).vf_state(0, j)["kicks"] for j in range(2)]
        await sim.host.mem_write16(vfs[0].bars[0].base + 0x4000 + 8 * 1, 1)  # VF 0's TX queue 0
        await sim.sleep(MS)
        return before, [vnet(sim).vf_state(0, j)["kicks"] for j in range(2)]

    before, after = run_ok(scenario, vf_platform()).result
    assert [a - b for a, b in zip(after, before)] == [1, 0]


def test_a_vfs_msix_table_pba_and_doorbells_before_its_engine_exists():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        (vf,) = await sriov.sriov_numvfs(pci, pf_of(pci), 1)
        await pci.enable_device(vf)
        h, base = sim.host, vf.bars[0].base
        await h.mem_write32(base + 0x2010, 0xFEE01000)  # entry 1: address, data, unmasked
        await h.mem_write32(base + 0x2018, 0x42)
        await h.mem_write32(base + 0x201C, 0)
        table = [(await h.mem_read(base + 0x2010 + 4 * k, 4)).value for k in range(4)]
        pba = (await h.mem_read(base + 0x3000, 4)).value
        await h.mem_write16(base + 0x4000, 0)  # no engine before FEATURES_OK: ignored, counted
        await sim.sleep(MS)
        past = (await h.mem_read(base + 0x5000, 4)).value  # past the doorbells: UR
        return table, pba, past, vnet(sim).vf_state(0, 0), vf.bdf

    res = run_ok(scenario, vf_platform(vfs=1))
    table, pba, past, state, vf_bdf = res.result
    assert table == [0xFEE01000, 0, 0x42, 0] and pba == 0 and past == 0xFFFFFFFF
    # The table's read completions come from the VF (its Routing ID as Completer ID, §2.2.9).
    table_cpls = [e for e in res.events("tlp", type="CplD", path="link_host")
                  if e["lower_addr"] in ("0x10", "0x14", "0x18", "0x1c")]
    assert [e["completer"] for e in table_cpls] == [vf_bdf] * 4
    assert (state["engine"], state["doorbells_without_engine"]) == (False, 1)
    assert [e["state"] for e in res.events("doorbell") if e["path"] == "ep0.vf0"] == ["no engine"]


def test_a_vfs_frames_without_an_engine_are_dropped_and_counted():
    async def scenario(sim):
        pci = await pci_host_probe(sim)
        await sriov.sriov_numvfs(pci, pf_of(pci), 1)
        sim.net.send(1, ethernet_frame(b"\x52\x54\x00\x12\x34\x57", b"\x02\x00\x00\x00\x00\x01", 0x88B5,
                                         bytes(50)))
        await sim.sleep(MS)
        return vnet(sim).vf_state(0, 0), vnet(sim).frames()

    doc = vnet_platform(num_ep=1, total_vfs=1)
    doc["wires"].append({"a": "ep0.vf0", "b": "python"})
    state, frames = run_ok(scenario, doc).result
    assert state["rx_dropped_without_engine"] == 1
    assert frames["dropped"] == {"rx_queue_not_ready": 1}


def test_a_wire_end_naming_a_missing_vf_is_refused():
    async def nothing(sim):
        return None

    doc = vnet_platform(num_ep=1, total_vfs=2)
    doc["wires"].append({"a": "ep0.vf2", "b": "loopback"})
    assert run(nothing, doc).doc_error == ("$.wires[1].a: 'ep0.vf2': endpoint 'ep0' has no VF 2 "
                                           "(topology.options.total-vfs is 2: vf0..vf1)")


def test_a_vf_is_named_for_the_linux_kernel_once_enabled():
    """boot_linux's device spec of "ep1.vf0" (dpusim.linux): the VF's routing ID, its BAR slice
    of the PF's VF BAR and the PF's IDs for the kernel (a VF reads FFFFh there); before
    sriov_numvfs, a clear error naming the PF and how many VFs it has enabled."""
    from dpusim.linux import _device_spec

    async def scenario(sim):
        pci = await pci_host_probe(sim)
        try:
            await _device_spec(sim, pci, "ep1.vf0")
            before = None
        except ValueError as e:
            before = str(e)
        pf = pci.find(sim.platform.function_id("ep1"))
        (vf,) = await sriov.sriov_numvfs(pci, pf, 1)
        spec = await _device_spec(sim, pci, "ep1.vf0")
        pf_spec = await _device_spec(sim, pci, "ep1")
        return dict(before=before, bdf=spec["bdf"] == vf.rid, vf_is_pf_plus_1=vf.rid == pf.rid + 1,
                    bars=[(b["base"], b["size"]) for b in spec["bars"]] == [(pf.sriov.bars[0].base, 0x8000)],
                    ids=hex(spec["ids"]), pf_ids=pf_spec["ids"], msix=spec["msix_entries"])

    res = run_ok(scenario, vnet_platform(num_ep=2, total_vfs=1, max_queue_pairs=4))
    assert res.result == dict(before="ep1.vf0: ep1 has 0 VFs enabled (sriov.sriov_numvfs before boot_linux)",
                              bdf=True, vf_is_pf_plus_1=True, bars=True, ids="0x10411af4", pf_ids=0, msix=10)
