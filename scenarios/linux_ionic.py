"""The upstream Linux ionic driver on three rocm-ernic NICs, two of them with the P4 engine in
their datapath (docs/linux.md, docs/ionic.md "The P4 engine in the datapath").

ep0 runs minimal_forward.json (a frame is dropped unless table ingress.fwd has an entry for its
destination MAC) and is wired to ep1 (plain ionic); ep2 runs bmv2's loopback.json (every frame
goes back out of the port it came in on) on a loopback plug. The upstream driver has no P4
commands, so before the kernel boots the scenario installs ep0's entries through the NIC's P4
control surface (device command 71 on the devcmd window, ep0 granted `write`): ep1's MAC and
the broadcast address to the uplink (port 1), ep0's own MAC to the host (port 0).

Then an unmodified user-mode Linux 6.12 boots with the three NICs in its virt-pci slots.
rocm-ernic's device ID (0x100a) is not in ionic's table (ionic_bus_pci.c has 0x1002 and
0x1003), so the guest gives it to the driver the way Linux allows without a patch,
`echo "1dd8 100a" > /sys/bus/pci/drivers/ionic/new_id`, and the driver probes all three. With
eth0 and eth1 in network namespaces of their own, ping crosses ep0's program 20 times without a
loss, and a TCP transfer of 256 KiB (python3 in the guest) arrives whole. On eth2 the guest
sends 5 frames through an AF_PACKET socket: loopback.json puts each back into eth2's own
receive ring and the same socket reads them back byte for byte. The driver's own counters
(`ethtool -S`) and, after the kernel has gone, the engines' counters read through the control
surface agree frame for frame. The NICs' own log shows the bring-up's commands answered with
SUCCESS and no command of the driver, the removal at halt included, answered with an error.
Needs the kernel with CONFIG_IONIC: ./dpusim linux-build."""
from dpusim.drivers.ionic import Ionic
from dpusim.drivers.ionic_p4 import IonicP4
from dpusim.drivers.pci import pci_host_probe

PLATFORM = {
    "host": {"cpus": 1},
    "topology": {"slots": [{"kind": "ionic", "p4-program": "tests/data/p4/minimal_forward.json",
                            "p4-guest-scope": "write"},
                           {"kind": "ionic"},
                           {"kind": "ionic", "p4-program": "tests/data/p4/loopback.json",
                            "p4-guest-scope": "read"}]},
    "wires": [{"a": "ep0", "b": "ep1"}, {"a": "ep2", "b": "loopback"}],
}

# The station MACs: rocm-ernic's 02:a0:d1:00:00:01 with the last byte the slot number + 1.
MAC = {"ep0": "02:a0:d1:00:00:01", "ep1": "02:a0:d1:00:00:02", "ep2": "02:a0:d1:00:00:03"}
BROADCAST = "ff:ff:ff:ff:ff:ff"
# ep0's table: what ns0 sends (to ep1, and its ARP requests) to the wire, what comes for ep0 to the host.
ROUTES = [(MAC["ep1"], 1), (BROADCAST, 1), (MAC["ep0"], 0)]

# What rocm-ernic answers with an error (models/ionic/devcmd.cpp, ionic_status_name).
ERRORS = ["EVERSION", "EOPCODE", "EIO", "EPERM", "EQID", "EQTYPE", "ENOENT", "EINTR", "EAGAIN", "ENOMEM",
          "EFAULT", "EBUSY", "EEXIST", "EINVAL", "ENOSPC", "ERANGE", "BAD_ADDR", "DEV_CMD", "ENOSUPP", "ERROR",
          "UNKNOWN"]
# Commands of the driver's bring-up each NIC must answer with SUCCESS (ionic_main.c, ionic_lif.c).
BRINGUP = [("devcmd", "IDENTIFY"), ("devcmd", "INIT"), ("devcmd", "PORT_INIT"), ("devcmd", "LIF_INIT"),
           ("adminq_cmd", "Q_INIT"), ("adminq_cmd", "LIF_SETATTR"), ("adminq_cmd", "RX_MODE_SET"),
           ("adminq_cmd", "RX_FILTER_ADD"), ("adminq_cmd", "Q_CONTROL")]

TCP_BYTES = 256 * 1024
# The guest's python3 programs (written to its /tmp line by line; no single quotes in them).
TCP_SERVER = """import hashlib, socket
s = socket.socket()
s.bind(("192.0.2.2", 5001))
s.listen(1)
c, _ = s.accept()
h, n = hashlib.sha256(), 0
while True:
    d = c.recv(65536)
    if not d:
        break
    h.update(d)
    n += len(d)
c.sendall(("%d %s" % (n, h.hexdigest())).encode())
c.close()"""
TCP_CLIENT = f"""import hashlib, socket
data = bytes(i % 251 for i in range({TCP_BYTES}))
c = socket.create_connection(("192.0.2.2", 5001), timeout=30)
c.sendall(data)
c.shutdown(socket.SHUT_WR)
got = c.recv(256).decode()
want = "%d %s" % (len(data), hashlib.sha256(data).hexdigest())
print("server got", got, "sent", want, "whole" if got == want else "DIFFERENT")"""
# The driver's counts of the descriptors it posted and the completions it took (ionic_txrx.c).
DESC_STATS = ("tx_csum", "tx_csum_none", "tx_tso", "rx_csum_none", "rx_csum_complete")
RAW_FRAMES = 5
RAW_LOOP = f"""import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88b5))
s.bind(("eth2", 0))
m = bytes.fromhex(open("/sys/class/net/eth2/address").read().strip().replace(":", ""))
frames = [m + m + bytes([0x88, 0xb5]) + bytes([i]) * (46 + 100 * i) for i in range({RAW_FRAMES})]
for f in frames:
    s.send(f)
s.settimeout(5)
got = [s.recv(2048) for f in frames]
print("sent", len(frames), "received", len(got), "identical" if got == frames else "DIFFERENT")"""


def write_script(path, text):
    """A guest command that writes `text` to `path` (each line one printf argument)."""
    lines = text.splitlines()
    assert not any("'" in line for line in lines), "a guest script line holds a single quote"
    return "printf '%s\\n' " + " ".join(f"'{line}'" for line in lines) + f" > {path}"


def fwd_entry(mac, port):
    return {"type": "INSERT", "table": "ingress.fwd",
            "match": [{"field": "hdr.ethernet.dstAddr", "value": "0x" + mac.replace(":", "")}],
            "action": "ingress.forward", "params": {"port": str(port)}}


def surface(sim, pci, nic, claim):
    """The P4 control surface of `nic` on its devcmd window, with no driver bound."""
    return IonicP4(Ionic(sim, pci, pci.find(sim.platform.function_id(nic))), via="devcmd", claim=claim)


async def driver_stats(linux, iface, ns=None):
    """The ionic driver's own frame counters (ethtool -S: the queues' software counts)."""
    prefix = f"ip netns exec {ns} " if ns else ""
    out = await linux.run(f"{prefix}ethtool -S {iface}")
    stats = dict(line.strip().split(": ") for line in out.splitlines() if ": " in line)
    return int(stats["tx_packets"]), int(stats["rx_packets"]), {k: int(stats[k]) for k in DESC_STATS}


async def scenario(sim):
    nics = ["ep0", "ep1", "ep2"]
    pci = await pci_host_probe(sim)
    applied = await surface(sim, pci, "ep0", "write").update([fwd_entry(mac, port) for mac, port in ROUTES])
    assert applied == len(ROUTES), applied
    print(f"ep0: {applied} entries in ingress.fwd before the kernel boots")

    errors = [(nic, kind, status, sim.wait_event(kind, path=nic, status=status))
              for nic in nics for kind in ("devcmd", "adminq_cmd") for status in ERRORS]
    bringup = [(nic, kind, cmd, sim.wait_event(kind, path=nic, cmd=cmd, status="SUCCESS"))
               for nic in nics for kind, cmd in BRINGUP]
    linux = await sim.boot_linux(devices=nics, pci=pci)
    lspci = await linux.run("lspci -nn")
    print(lspci)
    assert lspci.count("[1dd8:100a]") == 3, lspci
    await linux.run("echo 1dd8 100a > /sys/bus/pci/drivers/ionic/new_id")
    links = await linux.run("ip -br link")
    print(links)
    for i, nic in enumerate(nics):
        assert f"eth{i}" in links and MAC[nic] in links.split(f"eth{i}")[1].splitlines()[0], links
    info = await linux.run("ethtool -i eth0")
    print(info)
    assert "driver: ionic" in info and "firmware-version: rocm-ernic" in info, info
    offloads = await linux.run("ethtool -k eth0")
    shown = [line for line in offloads.splitlines()
             if line.split(":")[0] in ("tx-checksumming", "scatter-gather", "tcp-segmentation-offload",
                                       "rx-checksumming")]
    print("eth0 offloads: " + "; ".join(s.strip() for s in shown))

    await linux.namespaces(["eth0", "eth1"])
    ping = await linux.run("ip netns exec ns0 ping -c 20 -i 0.1 192.0.2.2")
    print(ping.splitlines()[-2])
    assert " 0% packet loss" in ping, ping
    after_ping = (await driver_stats(linux, "eth0", "ns0"))[:2]
    print(f"eth0 after the ping: tx_packets={after_ping[0]} rx_packets={after_ping[1]}")

    await linux.run(write_script("/tmp/tcp_server.py", TCP_SERVER))
    await linux.run(write_script("/tmp/tcp_client.py", TCP_CLIENT))
    await linux.run("ip netns exec ns1 python3 /tmp/tcp_server.py > /tmp/tcp_server.out 2>&1 & sleep 1")
    tcp = (await linux.run("ip netns exec ns0 python3 /tmp/tcp_client.py")).strip()
    print(tcp)
    assert tcp.endswith("whole"), tcp
    *eth0, desc0 = await driver_stats(linux, "eth0", "ns0")
    *eth1, _ = await driver_stats(linux, "eth1", "ns1")
    print(f"eth0: tx_packets={eth0[0]} rx_packets={eth0[1]}; eth1: tx_packets={eth1[0]} rx_packets={eth1[1]}")
    print("eth0 descriptors: " + " ".join(f"{k}={v}" for k, v in desc0.items()))

    await linux.run("ip link set eth2 up")
    await linux.run(write_script("/tmp/raw_loop.py", RAW_LOOP))
    raw = (await linux.run("python3 /tmp/raw_loop.py")).strip()
    print(raw)
    assert raw == f"sent {RAW_FRAMES} received {RAW_FRAMES} identical", raw
    eth2 = tuple((await driver_stats(linux, "eth2"))[:2])
    print(f"eth2: tx_packets={eth2[0]} rx_packets={eth2[1]}")
    assert eth2 == (RAW_FRAMES, RAW_FRAMES), eth2

    for nic, kind, cmd, seen in bringup:
        assert seen.done, f"{nic} never answered the driver's {cmd} ({kind}) with SUCCESS"
    ev = await linux.halt()
    failed = [f"{nic} {kind} {seen.result()['cmd']} {status}" for nic, kind, status, seen in errors if seen.done]
    print("commands the NICs answered with an error:", ", ".join(failed) or "none")
    assert not failed, failed
    print(f"guest halted at {sim.now / 1e12:.3f} s simulated: {ev['why']}")

    # The kernel has gone (ionic_remove disabled the functions); the host enables them and reads
    # the engines' counters.
    counters = {}
    for nic, claim in (("ep0", "write"), ("ep2", "read")):
        await pci.enable_device(pci.find(sim.platform.function_id(nic)))
        c = await surface(sim, pci, nic, claim).counters()
        counters[nic] = c
        print(f"{nic}: P4 counters " + " ".join(f"{k}={v}" for k, v in c.items()))
    # Every frame eth0 sent went through ep0's program to the wire, every one eth1 sent came back
    # through it to eth0; on ep2 every frame went back to the guest.
    p0 = counters["ep0"]
    assert (p0["host_in"], p0["uplink_out"], p0["to_net"]) == (eth0[0], eth0[0], eth0[0]) == (eth1[1],) * 3, p0
    assert (p0["uplink_in"], p0["host_out"], p0["to_guest"]) == (eth1[0], eth1[0], eth1[0]) == (eth0[1],) * 3, p0
    assert p0["dropped"] == p0["egress_errors"] == p0["parse_errors"] == 0, p0
    p2 = counters["ep2"]
    assert (p2["host_in"], p2["host_out"], p2["to_guest"]) == (RAW_FRAMES,) * 3, p2
    assert p2["uplink_in"] == p2["uplink_out"] == p2["dropped"] == 0, p2
    return {"ping": ping.splitlines()[-2], "tcp": tcp, "eth0_after_ping": list(after_ping), "eth0": list(eth0),
            "eth1": list(eth1), "eth2": list(eth2), "eth0_descriptors": desc0, "p4": counters, "time_ps": sim.now}
