"""The real Linux virtio_net driver on the DOCA vnet_pci_dev application's endpoints (docs/linux.md).

Two endpoints in static mode with four queue pairs (-n 2 -H 0 -q 4, base MAC
52:54:00:12:34:56), wired to each other. The Python PCI driver enumerates the switch; then an
unmodified user-mode Linux 6.12 kernel boots in simulated time with both endpoint functions in
its virt-pci slots, and its own virtio_pci and virtio_net drivers bind them: lspci shows two
1af4:1041, ip shows the application's MACs, ethtool names the driver and, after `ethtool -L
combined 4` (VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET on the control virtqueue), four combined channels.
With each interface in a network namespace of its own, ping crosses the wire 20 times without a
loss. Then 256 KiB cross by TCP (python3 in each namespace), which virtio_net hands the device
as TSO frames: the offload engine segments them and fills their checksums (docs/vnet.md,
"Transmit offloads"), and the receiver's byte count and SHA-256 match the sender's. The
features the driver negotiated are printed from sysfs. Needs the kernel:
./dpusim linux-build."""

from dpusim.vnet import vnet

PLATFORM = {
    "host": {"cpus": 1},
    "topology": {"family": "vnet", "options": {"num-ep": 2, "hotplug-mode": 0, "max-queue-pairs": 4,
                                               "mac-addr": "52:54:00:12:34:56"}},
    "wires": [{"a": "ep0", "b": "ep1"}],
}
MACS = ["52:54:00:12:34:56", "52:54:00:12:34:57"]
# virtio 1.2 §5.1.3 and §6: the feature bits worth naming.
FEATURES = {0: "CSUM", 1: "GUEST_CSUM", 2: "CTRL_GUEST_OFFLOADS", 3: "MTU", 5: "MAC", 7: "GUEST_TSO4",
            8: "GUEST_TSO6", 11: "HOST_TSO4", 12: "HOST_TSO6", 15: "MRG_RXBUF", 16: "STATUS", 17: "CTRL_VQ",
            18: "CTRL_RX", 19: "CTRL_VLAN", 22: "MQ", 23: "CTRL_MAC_ADDR", 32: "VERSION_1",
            33: "ACCESS_PLATFORM", 34: "RING_PACKED", 63: "SPEED_DUPLEX"}



# The application's log lines the real driver's bring-up must produce (docs/linux.md): the
# features it accepted, its queues, and the queue pairs it set on the control virtqueue.
APP_LOG = [("vnet.main", "VirtIO Driver: FEATURES_OK - feature negotiated (=0x431829)"),
           ("vnet.worker", "Created 4 queue pairs (VQ0-VQ7)"),
           ("vnet.worker", "MQ_VQ_PAIRS_SET: 1 -> 1 QPs"),
           ("vnet.worker", "MQ_VQ_PAIRS_SET: 1 -> 4 QPs")]


async def scenario(sim):
    app_log = [sim.wait_event("log", path=path, msg=msg) for path, msg in APP_LOG]
    linux = await sim.boot_linux(devices=["ep0", "ep1"])
    lspci = await linux.run("lspci -nn")
    print(lspci)
    assert lspci.count("[1af4:1041]") == 2, lspci
    links = await linux.run("ip -br link")
    print(links)
    for i, mac in enumerate(MACS):
        assert f"eth{i}" in links and mac in links, links
    info = await linux.run("ethtool -i eth0")
    assert "driver: virtio_net" in info, info
    bits = (await linux.run("cat /sys/class/net/eth0/device/features")).strip()
    negotiated = [name for bit, name in sorted(FEATURES.items()) if bit < len(bits) and bits[bit] == "1"]
    print("negotiated:", " ".join(negotiated))
    await linux.run("ethtool -L eth0 combined 4")
    channels = await linux.run("ethtool -l eth0")
    print(channels)
    assert channels.split("Current hardware settings:")[1].split("Combined:")[1].split()[0] == "4", channels
    await linux.namespaces(["eth0", "eth1"])
    ping = await linux.run("ip netns exec ns0 ping -c 20 -i 0.1 192.0.2.2")
    print(ping.splitlines()[-2])
    assert " 0% packet loss" in ping, ping
    tcp = await tcp_transfer(linux)
    before = [vnet(sim).counters(ep) for ep in range(2)]
    tx = before[0]
    print(f"ep0 transmit offloads: {tx['tx_gso_frames']} GSO frames -> {tx['tx_segments']} segments, "
          f"{tx['tx_csum_filled']} checksums filled, {tx['tx_offload_drops']} offload drops; "
          f"ep1 received {before[1]['rx_frames']} frames")
    assert tx["tx_segments"] > tx["tx_gso_frames"] > 0 and tx["tx_offload_drops"] == 0, tx
    for (path, msg), seen in zip(APP_LOG, app_log):
        assert seen.done, f"the application never logged {msg!r} ({path})"
        print(f"app log at {seen.result()['time_ps'] / 1e9:.3f} ms: {msg}")
    ev = await linux.halt()
    print(f"guest halted at {sim.now / 1e12:.3f} s simulated: {ev['why']}")
    return {"negotiated": negotiated, "ping": ping.splitlines()[-2], "tcp": tcp,
            "offloads": {k: tx[k] for k in ("tx_gso_frames", "tx_segments", "tx_csum_filled", "tx_offload_drops")},
            "time_ps": sim.now}


# A TCP transfer from ns0 to ns1 with the guest's python3: the receiver (started in the
# background) counts and hashes what it got and sends that back; the sender prints what it sent
# and the receiver's answer. virtio_net hands the device TSO frames (gso_type TCPV4, NEEDS_CSUM)
# the offload engine segments and checksums; the receiving kernel checks every checksum.
TCP_BYTES = 256 * 1024
RECEIVER = ["import socket, hashlib",
            "s = socket.socket()",
            "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)",
            "s.bind((\"192.0.2.2\", 5001))",
            "s.listen(1)",
            "c, _ = s.accept()",
            "h, n = hashlib.sha256(), 0",
            "while True:",
            "    d = c.recv(65536)",
            "    if not d: break",
            "    h.update(d)",
            "    n += len(d)",
            "c.sendall((\"%d %s\" % (n, h.hexdigest())).encode())",
            "c.close()"]
SENDER = ["import socket, hashlib, random, time",
          f"data = random.Random(1).randbytes({TCP_BYTES})",
          "for i in range(50):",
          "    try:",
          "        c = socket.create_connection((\"192.0.2.2\", 5001))",
          "        break",
          "    except ConnectionRefusedError:",
          "        time.sleep(0.1)",
          "c.sendall(data)",
          "c.shutdown(socket.SHUT_WR)",
          "r = b\"\"",
          "while True:",
          "    d = c.recv(4096)",
          "    if not d: break",
          "    r += d",
          "print(\"sent %d %s\" % (len(data), hashlib.sha256(data).hexdigest()))",
          "print(\"received \" + r.decode())"]


def _write_script(path, lines):
    return "printf '%s\\n' " + " ".join(f"'{line}'" for line in lines) + f" > {path}"


async def tcp_transfer(linux):
    await linux.run(_write_script("/tmp/rx.py", RECEIVER))
    await linux.run(_write_script("/tmp/tx.py", SENDER))
    await linux.run("ip netns exec ns1 env PYTHONHASHSEED=0 python3 /tmp/rx.py > /tmp/rx.out 2>&1 &")
    out = await linux.run("ip netns exec ns0 env PYTHONHASHSEED=0 python3 /tmp/tx.py")
    print(out.strip())
    lines = out.split()
    sent, received = lines[lines.index("sent") + 1:][:2], lines[lines.index("received") + 1:][:2]
    assert sent[0] == str(TCP_BYTES) and received == sent, out
    return {"bytes": int(received[0]), "sha256": received[1]}
