"""The real Linux driver resets a virtio-net endpoint of the DOCA app under a running ping
(docs/linux.md).

The platform of linux_virtio_net.py, eth0 in namespace ns0 and eth1 in ns1. A ping runs in the
background from ns0 to ns1 (300 requests, every 50 ms); meanwhile the guest resets ep1's
function the ways Linux can: it unbinds and binds virtio-pci (the driver's virtio reset, then a
fresh probe), and it removes the function and rescans the bus (a new pci_dev, probed again).
After each re-probe the new interface goes back into ns1 with its address. A function reset
through `/sys/bus/pci/devices/<bdf>/reset` is not offered: the app's PF has no FLR and this
kernel finds no other reset method for a function on virt-pci's bus, so the file is absent
(printed). The ping's summary counts the requests lost while ep1 was away, and a last ping
passes without a loss; the app's log shows ep1's RESET path. Needs the kernel:
./dpusim linux-build."""
import os

from dpusim.scenario_file import load_scenario
from dpusim.units import s

# The platform of linux_virtio_net.py: two DOCA-app endpoints wired to each other.
_, PLATFORM = load_scenario(os.path.join(os.path.dirname(__file__), "linux_virtio_net.py"))
EP1 = "0000:00:01.0"
# ep1's network interface, whatever the kernel named it after a re-probe.
IFACE = f"$(ls /sys/bus/pci/devices/{EP1}/virtio*/net/)"


async def back_into_ns1(linux):
    await linux.run(f"i={IFACE}; ip link set $i netns ns1 && ip -n ns1 addr add 192.0.2.2/24 dev $i && "
                    "ip -n ns1 link set $i up")


async def ping_ok(linux):
    # The first request after a re-probe can be lost (the app starts the new receive queue a
    # little after DRIVER_OK): one request first, its loss allowed, then five without a loss.
    await linux.sh("ip netns exec ns0 ping -c 1 -W 2 192.0.2.2")
    last = (await linux.run("ip netns exec ns0 ping -c 5 192.0.2.2")).splitlines()[-2]
    assert " 0% packet loss" in last, last
    return last


async def scenario(sim):
    resets = sim.wait_event("log", path="vnet.main", msg="VNet device 03:00.0: RESET detected - performing cleanup")
    linux = await sim.boot_linux(devices=["ep0", "ep1"])
    await linux.namespaces(["eth0", "eth1"])
    print("before:", await ping_ok(linux))
    await linux.run("ip netns exec ns0 ping -i 0.05 -c 300 -W 1 192.0.2.2 > /tmp/ping.log 2>&1 &")
    await linux.run("sleep 1")
    await linux.run(f"echo {EP1} > /sys/bus/pci/drivers/virtio-pci/unbind")
    gone = await linux.run("ip -n ns1 -br link")
    assert "52:54:00:12:34:57" not in gone, gone
    await linux.run("sleep 1")
    await linux.run(f"echo {EP1} > /sys/bus/pci/drivers/virtio-pci/bind")
    await back_into_ns1(linux)
    await linux.run("sleep 1")
    await linux.run(f"echo 1 > /sys/bus/pci/devices/{EP1}/remove")
    assert EP1 not in await linux.run("ls /sys/bus/pci/devices/")
    await linux.run("sleep 1")
    await linux.run("echo 1 > /sys/bus/pci/rescan")
    await back_into_ns1(linux)
    has_reset = (await linux.run(f"test -e /sys/bus/pci/devices/{EP1}/reset && echo yes || echo no")).strip()
    print(f"/sys/bus/pci/devices/{EP1}/reset present: {has_reset}")
    assert has_reset == "no"
    await linux.run("while pgrep -x ping > /dev/null; do sleep 1; done", timeout_ps=s(120))
    log = await linux.run("cat /tmp/ping.log")
    summary = [line for line in log.splitlines() if "packets transmitted" in line]
    assert summary, log
    sent, got = int(summary[0].split()[0]), int(summary[0].split(",")[1].split()[0])
    print(f"under the resets: {summary[0]} ({sent - got} requests lost)")
    assert sent == 300 and 0 < got < sent, summary[0]
    print("after:", await ping_ok(linux))
    assert resets.done, "the app never saw ep1's reset"
    await linux.halt()
    return {"sent": sent, "received": got, "time_ps": sim.now}
