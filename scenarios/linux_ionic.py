"""The upstream Linux ionic driver on two rocm-ernic NICs wired to each other (docs/linux.md).

The Python PCI driver enumerates the switch; then an unmodified user-mode Linux 6.12 boots with
both NICs in its virt-pci slots. rocm-ernic's device ID (0x100a) is not in ionic's table
(ionic_bus_pci.c has 0x1002 and 0x1003), so the guest gives it to the driver the way Linux
allows without a patch, `echo "1dd8 100a" > /sys/bus/pci/drivers/ionic/new_id`, and the driver
probes both: identify, init, the LIF with its admin and notify queues, its receive filters.
`ethtool -i` names the driver and rocm-ernic's firmware; with each interface in a network
namespace of its own, ping crosses the wire 20 times without a loss. The NICs' own log (events
devcmd and adminq_cmd) shows the bring-up's commands answered with SUCCESS, and no command of
the driver, the removal at halt included, answered with an error. Needs the kernel with
CONFIG_IONIC: ./dpusim linux-build."""
PLATFORM = {
    "host": {"cpus": 1},
    "topology": {"slots": [{"kind": "ionic"}, {"kind": "ionic"}]},
    "wires": [{"a": "ep0", "b": "ep1"}],
}


# What rocm-ernic answers with an error (models/ionic/devcmd.cpp, ionic_status_name).
ERRORS = ["EVERSION", "EOPCODE", "EIO", "EPERM", "EQID", "EQTYPE", "ENOENT", "EINTR", "EAGAIN", "ENOMEM",
          "EFAULT", "EBUSY", "EEXIST", "EINVAL", "ENOSPC", "ERANGE", "BAD_ADDR", "DEV_CMD", "ENOSUPP", "ERROR",
          "UNKNOWN"]
# Commands of the driver's bring-up each NIC must answer with SUCCESS (ionic_main.c, ionic_lif.c).
BRINGUP = [("devcmd", "IDENTIFY"), ("devcmd", "INIT"), ("devcmd", "PORT_INIT"), ("devcmd", "LIF_INIT"),
           ("adminq_cmd", "Q_INIT"), ("adminq_cmd", "LIF_SETATTR"), ("adminq_cmd", "RX_MODE_SET"),
           ("adminq_cmd", "RX_FILTER_ADD"), ("adminq_cmd", "Q_CONTROL")]



async def scenario(sim):
    nics = ["ep0", "ep1"]
    errors = [(nic, kind, status, sim.wait_event(kind, path=nic, status=status))
              for nic in nics for kind in ("devcmd", "adminq_cmd") for status in ERRORS]
    bringup = [(nic, kind, cmd, sim.wait_event(kind, path=nic, cmd=cmd, status="SUCCESS"))
               for nic in nics for kind, cmd in BRINGUP]
    linux = await sim.boot_linux(devices=nics)
    lspci = await linux.run("lspci -nn")
    print(lspci)
    assert lspci.count("[1dd8:100a]") == 2, lspci
    await linux.run("echo 1dd8 100a > /sys/bus/pci/drivers/ionic/new_id")
    links = await linux.run("ip -br link")
    print(links)
    assert "eth0" in links and "eth1" in links, links
    info = await linux.run("ethtool -i eth0")
    print(info)
    assert "driver: ionic" in info and "firmware-version: rocm-ernic" in info, info
    await linux.namespaces(["eth0", "eth1"])
    ping = await linux.run("ip netns exec ns0 ping -c 20 -i 0.1 192.0.2.2")
    print(ping.splitlines()[-2])
    assert " 0% packet loss" in ping, ping
    for nic, kind, cmd, seen in bringup:
        assert seen.done, f"{nic} never answered the driver's {cmd} ({kind}) with SUCCESS"
    ev = await linux.halt()
    failed = [f"{nic} {kind} {seen.result()['cmd']} {status}" for nic, kind, status, seen in errors if seen.done]
    print("commands the NICs answered with an error:", ", ".join(failed) or "none")
    assert not failed, failed
    print(f"guest halted at {sim.now / 1e12:.3f} s simulated: {ev['why']}")
    return {"ping": ping.splitlines()[-2], "time_ps": sim.now}
