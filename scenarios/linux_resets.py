"""The real Linux driver resets virtio-net functions of the DOCA app under a running ping, each
way Linux can, and counts the requests each way loses (docs/linux.md).

Two endpoints of linux_virtio_net.py, each with SR-IOV (one VF), the PFs wired to each other
and so are their VFs. The Python driver enables one VF on each PF (`echo 1 > sriov_numvfs`)
before the kernel boots with four slots: ep0, ep1 and the two VFs, each a function of its own
to the kernel; virtio_net binds all four, each in a network namespace of its own. Under a
background ping (`-i 0.05 -c 100 -W 1`) per method, the guest resets a function:
  - unbind/bind: virtio-pci unbound from ep1 (the driver's virtio reset) and bound again;
  - remove/rescan: ep1 removed from the bus and found again (a new pci_dev, a new probe);
  - FLR: `echo 1 > /sys/bus/pci/devices/<ep1.vf0>/reset`. A VF has FLR, so the kernel offers
    the file (the PF has none: no FLR bit, and no other method on virt-pci's bus 0).
    pci_reset_function saves the config space, pcie_flr writes Initiate FLR and waits 100 ms,
    and the config space is restored; virtio_net is not told (virtio_pci has no reset_prepare
    in 6.12), so its rings are the device's no more: the VF is unbound and bound again.
Each ping's summary gives that method's lost requests (printed, asserted); the app's log shows
ep1's RESET path and the VF's FLR path. The status-0x40 hazard (double_reset_hazard.py) needs
a second status-0 write while the cleanup the first queued has not started: for ep1's two
cleanups that window (cleanup queued to cleanup started) and the time to the kernel's next
status-0 write to ep1 are measured and printed; the kernel cannot reach it (docs/linux.md).
Needs the kernel: ./dpusim linux-build."""
from dpusim.drivers import sriov
from dpusim.drivers.pci import pci_host_probe
from dpusim.units import s

PLATFORM = {
    "host": {"cpus": 1},
    "topology": {"family": "vnet", "options": {"num-ep": 2, "hotplug-mode": 0, "max-queue-pairs": 4,
                                               "mac-addr": "52:54:00:12:34:56", "total-vfs": 1}},
    "wires": [{"a": "ep0", "b": "ep1"}, {"a": "ep0.vf0", "b": "ep1.vf0"}],
}
# The app's per-VF FLR path for ep1.vf0 (the second VF of the pool: vf_index 1, slot 0 of its PF).
FLR_LOG = [("vnet.main", "slot=0, vf_index=1", "FLR - config space reset, queueing VF_FLR_RESET"),
           ("vnet.worker", "vf_index=1", "engine destroyed (FLR)"),
           ("vnet.worker", "vf_index=1", "tlp_dev stopped (FLR)"),
           ("vnet.worker", "slot=0, vf_index=1", "FLR complete")]
# Requests lost per method (seed 1): deterministic, as every run replays from its seed.
EXPECTED_LOST = {"unbind/bind": 18, "remove/rescan": 18, "FLR": 19}
DEVICES = ["ep0", "ep1", "ep0.vf0", "ep1.vf0"]
EP1, VF1 = "0000:00:01.0", "0000:00:03.0"


def iface(bdf):
    """The function's network interface, whatever the kernel named it after a re-probe."""
    return f"$(ls /sys/bus/pci/devices/{bdf}/virtio*/net/)"


async def back_into(linux, bdf, ns, addr):
    await linux.run(f"i={iface(bdf)}; ip link set $i netns {ns} && ip -n {ns} addr add {addr}/24 dev $i && "
                    f"ip -n {ns} link set $i up")


async def ping_ok(linux, ns, addr):
    # The first request after a re-probe can be lost (the app starts the new receive queue a
    # little after DRIVER_OK): one request first, its loss allowed, then five without a loss.
    await linux.sh(f"ip netns exec {ns} ping -c 1 -W 2 {addr}")
    last = (await linux.run(f"ip netns exec {ns} ping -c 5 {addr}")).splitlines()[-2]
    assert " 0% packet loss" in last, last
    return last


async def lost_under(linux, name, ns, addr, reset):
    """Requests lost by a background ping (100 requests, 50 ms apart) while `reset` runs."""
    await linux.run(f"ip netns exec {ns} ping -i 0.05 -c 100 -W 1 {addr} > /tmp/{name}.log 2>&1 &")
    await linux.run("sleep 1")
    await reset()
    await linux.run("while pgrep -x ping > /dev/null; do sleep 1; done", timeout_ps=s(60))
    log = await linux.run(f"cat /tmp/{name}.log")
    summary = [line for line in log.splitlines() if "packets transmitted" in line]
    assert summary, log
    sent, got = int(summary[0].split()[0]), int(summary[0].split(",")[1].split()[0])
    assert sent == 100 and 0 < got < sent, summary[0]
    return sent - got


async def hazard_windows(sim, n):
    """The status-0x40 hazard's window for ep1's first `n` cleanups: from the cleanup queued by a
    status-0 write (the hold at 0x40 begins) to the worker starting it (a second status-0 write
    inside makes it stale: docs/vnet.md), and the kernel's next status-0 write to ep1."""
    out = []
    for _ in range(n):
        queued = await sim.wait_event("work_queued", type="PCI_CFG_WORK_CONTROLLER_CLEANUP", ep=1)
        next_reset = sim.wait_event("reset_generation", ep=1)
        started = await sim.wait_event("work_started", item=queued["item"])
        out.append((queued["time_ps"], started["time_ps"], (await next_reset)["time_ps"]))
    return out


async def scenario(sim):
    resets = sim.wait_event("log", path="vnet.main", msg="VNet device 03:00.0: RESET detected - performing cleanup")
    flr_log = [sim.wait_event("log", path=path, msg=f"SR-IOV: VF[{vf}] {msg}") for path, vf, msg in FLR_LOG]
    pci = await pci_host_probe(sim)
    for pf in ("ep0", "ep1"):
        await sriov.sriov_numvfs(pci, pci.find(sim.platform.function_id(pf)), 1)
    linux = await sim.boot_linux(devices=DEVICES, pci=pci)
    hazard = sim.spawn(hazard_windows(sim, 2), "hazard_windows")
    print(await linux.run("lspci -nn"))
    print(await linux.run("ip -br link"))
    has_reset = [(await linux.run(f"test -e /sys/bus/pci/devices/{bdf}/reset && echo yes || echo no")).strip()
                 for bdf in ("0000:00:00.0", EP1, "0000:00:02.0", VF1)]
    print("reset file present:", dict(zip(DEVICES, has_reset)))
    await linux.namespaces(["eth0", "eth1", "eth2", "eth3"])
    # The guest's clock starts at 0 at boot; iputils' pinger (ping_common.c) takes a clock
    # reading whose tv_sec is 0 for "not started yet", so it would not pace its requests until
    # the guest's clock has passed 1 s (linux_virtio_net.py passes it waiting for ARP).
    await linux.run("sleep 1")
    print("before: PFs", await ping_ok(linux, "ns0", "192.0.2.2"), "| VFs", await ping_ok(linux, "ns2", "192.0.2.4"))

    async def unbind_bind():
        await linux.run(f"echo {EP1} > /sys/bus/pci/drivers/virtio-pci/unbind")
        await linux.run("sleep 1")
        await linux.run(f"echo {EP1} > /sys/bus/pci/drivers/virtio-pci/bind")
        await back_into(linux, EP1, "ns1", "192.0.2.2")

    async def remove_rescan():
        await linux.run(f"echo 1 > /sys/bus/pci/devices/{EP1}/remove")
        await linux.run("sleep 1")
        await linux.run("echo 1 > /sys/bus/pci/rescan")
        await back_into(linux, EP1, "ns1", "192.0.2.2")

    async def flr():
        # The reset while virtio_net is bound: the rings are the device's no more and nothing
        # tells the driver (virtio_pci has no reset_prepare/reset_done in 6.12), so the
        # interface stays up but passes nothing; unbinding and binding again recovers it.
        await linux.run(f"echo 1 > /sys/bus/pci/devices/{VF1}/reset")
        await linux.run("sleep 1")
        await linux.run(f"echo {VF1} > /sys/bus/pci/drivers/virtio-pci/unbind")
        await linux.run(f"echo {VF1} > /sys/bus/pci/drivers/virtio-pci/bind")
        await back_into(linux, VF1, "ns3", "192.0.2.4")

    lost = {"unbind/bind": await lost_under(linux, "unbind", "ns0", "192.0.2.2", unbind_bind),
            "remove/rescan": await lost_under(linux, "remove", "ns0", "192.0.2.2", remove_rescan),
            "FLR": await lost_under(linux, "flr", "ns2", "192.0.2.4", flr)}
    print(", ".join(f"{k}: {v} lost" for k, v in lost.items()))
    assert lost == EXPECTED_LOST, lost
    print("after: PFs", await ping_ok(linux, "ns0", "192.0.2.2"), "| VFs", await ping_ok(linux, "ns2", "192.0.2.4"))
    assert resets.done, "the app never saw ep1's reset"
    for (path, vf, msg), seen in zip(FLR_LOG, flr_log):
        assert seen.done, f"the app never logged the VF's {msg!r}"
        print(f"app log at {seen.result()['time_ps'] / 1e9:.3f} ms: SR-IOV: VF[{vf}] {msg}")
    vf_link = await linux.run("ip -n ns3 -br link")
    print("ep1.vf0 after its FLR:", vf_link.splitlines()[-1])
    assert "52:54:00:12:34:59" in vf_link, vf_link
    windows = await hazard
    for queued, started, again in windows:
        print(f"0x40 hazard window: ep1's cleanup queued at {queued / 1e9:.3f} ms, started "
              f"{(started - queued) / 1e6:.3f} us later; the kernel's next status-0 write to ep1 came "
              f"{(again - queued) / 1e9:.3f} ms after it")
        assert started - queued < again - queued
    await linux.halt()
    return {"lost": lost, "hazard_windows_ps": [[b - a, c - a] for a, b, c in windows], "time_ps": sim.now}
