"""The ionic NIC's PCI identity, its BAR0 registers and every device command's status on the
devcmd window and the admin queue, with what each command answers or writes (rocm-ernic's
ionic_eth_emu.c behaviour)."""
import struct

from dpusim.drivers.ionic_regs import *  # noqa: F403
from dpusim.drivers.pci_regs import PCI_CAP_ID_MSIX, PCI_MSIX_FLAGS, PCI_MSIX_PBA, PCI_MSIX_TABLE
from dpusim.testing import run_ok
from dpusim.units import us
from ionic_util import bring_up, cmd_bytes, ionic_platform, u32, unprobed

# Status on the devcmd window with the P4 surface not registered: rocm-ernic's handled
# opcodes succeed, everything else is EOPCODE (2).
SUCCEEDS = [0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24, 39, 40, 41, 50, 51, 52, 53]
EOPCODE = [25, 30, 31, 32, 60, 61, 62, 70, 71, 72, 80, 99, 200, 240, 241, 242, 243, 244, 245, 252, 253, 254, 255]


def test_pci_identity_bars_and_msix_table():
    async def scenario(sim):
        nic = await unprobed(sim)
        h, rid = sim.host, nic.dev.rid
        ids = await h.config_read32(rid, 0)
        cls = await h.config_read32(rid, 8) >> 8
        subsys = await h.config_read32(rid, 0x2C)
        pin = await h.config_read8(rid, 0x3D)
        msix = nic.dev.cap(PCI_CAP_ID_MSIX)
        ctrl = await h.config_read16(rid, msix + PCI_MSIX_FLAGS)
        table = await h.config_read32(rid, msix + PCI_MSIX_TABLE)
        pba = await h.config_read32(rid, msix + PCI_MSIX_PBA)
        bars = [(b.index, b.size, b.is64) for b in nic.dev.bars]
        return ids, cls, subsys, pin, [c for c, _ in nic.dev.caps], ctrl & 0x7FF, table, pba, bars

    ids, cls, subsys, pin, caps, qsize, table, pba, bars = run_ok(scenario, ionic_platform({})).result
    assert ids == 0x100A1DD8 and cls == 0x020000 and subsys == 0x54001DD8 and pin == 1
    assert caps == [PCI_CAP_ID_MSIX]          # no PCI Express capability, as rocm-ernic
    assert qsize == 31 and table == 0x8000 and pba == 0xA000  # 32 vectors, BIR 0
    assert bars == [(0, 0x10000, True), (2, 4 << 20, True)]


def test_dev_info_registers():
    async def scenario(sim):
        nic = await unprobed(sim)
        h, r = sim.host, nic.regs
        return (await h.mem_read32(r + DEV_INFO_SIGNATURE), await h.mem_read8(r + DEV_INFO_VERSION),
                await h.mem_read8(r + DEV_INFO_ASIC_TYPE), await h.mem_read8(r + DEV_INFO_FW_STATUS),
                await h.mem_read32(r + DEV_INFO_FW_HEARTBEAT), (await h.mem_read(r + DEV_INFO_FW_VERSION, 32)).data,
                (await h.mem_read(r + DEV_INFO_SERIAL_NUM, 32)).data)

    sig, ver, asic, fw, hb, fwv, serial = run_ok(scenario, ionic_platform({})).result
    assert (sig, ver, asic, fw, hb) == (IONIC_DEV_INFO_SIGNATURE, 1, 0, IONIC_FW_STS_F_RUNNING, 0)
    assert fwv == b"rocm-ernic-1.0".ljust(32, b"\0") and serial == b"rocm-ernic-emulated".ljust(32, b"\0")


def test_every_opcode_status_on_the_devcmd_window_and_the_adminq():
    async def scenario(sim):
        nic = await unprobed(sim)
        window = {}
        for op in SUCCEEDS + EOPCODE:
            comp = await nic.dev_cmd(cmd_bytes(op), check=False)
            window[op] = comp[COMP_STATUS]
        # The window's protocol for an unknown opcode, step by step: done = 1, doorbell cleared.
        h, base = sim.host, nic.regs + IONIC_BAR0_DEV_CMD_REGS_OFFSET
        await h.mem_write(base + DEV_CMD_CMD, cmd_bytes(99))
        await h.mem_write32(base + DEV_CMD_DONE, 0)
        await h.mem_write32(base + DEV_CMD_DOORBELL, 1)
        await sim.sleep(us(20))
        raw = (await h.mem_read32(base + DEV_CMD_DONE), await h.mem_read32(base + DEV_CMD_DOORBELL),
               await h.mem_read8(base + DEV_CMD_COMP))
        await nic.probe()
        adminq = {}
        for op in SUCCEEDS + EOPCODE:
            # A Q_INIT that names no queue: the admin queue itself must survive the sweep.
            cmd = cmd_bytes(op, [(Q_INIT_TYPE, "B", 7)] if op == IONIC_CMD_Q_INIT else [])
            comp = await nic.adminq_cmd(cmd, check=False)
            adminq[op] = comp[COMP_STATUS]
        return window, raw, adminq

    res = run_ok(scenario, ionic_platform({}))
    window, raw, adminq = res.result
    assert {op: s for op, s in window.items() if s} == {op: IONIC_RC_EOPCODE for op in EOPCODE}
    assert raw == (IONIC_DEV_CMD_DONE, 0, IONIC_RC_EOPCODE)
    assert set(adminq.values()) == {0}   # the admin queue answers every opcode with status 0
    warnings = [e["msg"] for e in res.events("log", path="ep0") if e["level"] == "warning"]
    assert warnings == [f"ionic_eth_emu: unknown opcode={op}" for op in EOPCODE] + ["ionic_eth_emu: unknown opcode=99"]


def test_identities_and_what_commands_write():
    async def scenario(sim):
        nic = await unprobed(sim)
        h = sim.host
        out = {}
        comp = await nic.dev_cmd(cmd_bytes(IONIC_CMD_IDENTIFY, [(1, "B", 2)]), data=b"\x01" * 512)
        out["identify"] = (comp[1], await nic.dev_cmd_data(64))
        comp = await nic.dev_cmd(cmd_bytes(IONIC_CMD_LIF_IDENTIFY, [(1, "B", 0), (2, "B", 1)]))
        out["lif"] = (comp[1], await nic.dev_cmd_data(DEV_CMD_DATA_BYTES))
        # Q_IDENTIFY takes its qtype from byte 3 (rocm-ernic), not Linux's type at byte 4.
        await nic.dev_cmd(cmd_bytes(IONIC_CMD_Q_IDENTIFY, [(4, "B", IONIC_QTYPE_TXQ)]))
        out["q_linux"] = await nic.dev_cmd_data(Q_ID_BYTES)
        await nic.dev_cmd(cmd_bytes(IONIC_CMD_Q_IDENTIFY, [(3, "B", IONIC_QTYPE_TXQ)]))
        out["q_txq"] = await nic.dev_cmd_data(Q_ID_BYTES)
        info = h.alloc(4096)
        comp = await nic.dev_cmd(cmd_bytes(IONIC_CMD_LIF_INIT, [(2, "H", 5), (CMD_INFO_PA, "Q", info)]))
        out["lif_init"] = (struct.unpack_from("<H", comp, 2)[0], h.read(info + IONIC_LIF_INFO_STATUS, 16))
        port = h.alloc(4096)
        await nic.dev_cmd(cmd_bytes(IONIC_CMD_PORT_INIT, [(CMD_INFO_PA, "Q", port)]))
        out["port"] = h.read(port, PORT_INFO_PUBLISHED_BYTES)
        await nic.dev_cmd(cmd_bytes(IONIC_CMD_LIF_SETATTR, [(1, "B", IONIC_LIF_ATTR_MAC), (4, "6s", b"\x02\x11\x22\x33\x44\x55")]))
        comp = await nic.dev_cmd(cmd_bytes(IONIC_CMD_LIF_GETATTR, [(1, "B", IONIC_LIF_ATTR_MAC)]))
        out["mac"] = bytes(comp[4:10])
        comp = await nic.dev_cmd(cmd_bytes(IONIC_CMD_Q_INIT, [(Q_INIT_TYPE, "B", 2), (Q_INIT_INDEX, "I", 9),
                                                              (Q_INIT_RING_SIZE, "B", 4)]))
        out["q_init_ignored"] = (comp[COMP_STATUS], u32(comp, Q_INIT_COMP_HW_INDEX), comp[Q_INIT_COMP_HW_TYPE])
        return out

    res = run_ok(scenario, ionic_platform({}))
    o = res.result
    ver, d = o["identify"]
    assert ver == 1 and d[0] == 1 and d[DEV_ID_NPORTS] == 1
    assert struct.unpack_from("<6I", d, DEV_ID_NLIFS) == (1, 32, 32772, 1, 1, 32)
    ver, lif = o["lif"]
    assert ver == 1 and struct.unpack_from("<Q", lif, 0)[0] == IONIC_LIF_CAP_ETH | IONIC_LIF_CAP_RDMA
    assert struct.unpack_from("<IIH", lif, LIF_ID_MAX_UCAST_FILTERS) == (4, 32, 128)
    assert struct.unpack_from("<II", lif, LIF_ID_MIN_FRAME_SIZE) == (64, 9216)
    assert lif[LIF_ID_CONFIG_NAME:LIF_ID_CONFIG_NAME + 7] == b"ernic0\0" and u32(lif, LIF_ID_CONFIG_MTU) == 1500
    assert lif[LIF_ID_CONFIG_MAC:LIF_ID_CONFIG_MAC + 6] == bytes.fromhex("02a0d1000001")
    assert struct.unpack_from("<4I", lif, LIF_ID_CONFIG_QUEUE_COUNT) == (1, 1, 4, 4)
    assert lif[LIF_ID_RDMA:LIF_ID_RDMA + 3] == bytes([1, 16, 19]) and u32(lif, LIF_ID_RDMA + 4) == 1 << 31
    assert [lif[LIF_ID_RDMA + 32 + 12 * i] for i in range(5)] == [5, 6, 7, 8, 9]
    assert struct.unpack_from("<HHHHH", o["q_linux"], Q_ID_DESC_SZ) == (16, 16, 0, 0, 0)
    assert struct.unpack_from("<HHHHH", o["q_txq"], Q_ID_DESC_SZ) == (16, 16, 128, 8, 8)
    hw_index, status = o["lif_init"]
    assert hw_index == 5 and struct.unpack_from("<HI", status, LIF_STATUS_LINK_STATUS) == (1, 100000)
    port = o["port"]
    assert struct.unpack_from("<II", port, 0) == (100000, 9000) and port[PORT_INFO_CONFIG_STATE] == 2
    assert u32(port, PORT_INFO_STATUS_SPEED) == 100000 and port[PORT_INFO_STATUS_STATUS] == 1
    assert port[PORT_INFO_XCVR_STATE:PORT_INFO_XCVR_PID + 2] == bytes([1, 1, 1, 0])
    assert o["mac"] == b"\x02\x11\x22\x33\x44\x55"
    assert o["q_init_ignored"] == (0, 9, 2)
    ignored = res.events("q_init_ignored", path="ep0")
    assert [e["reason"] for e in ignored] == ["queue index 9 outside 0..3"]


def test_a_command_is_done_at_the_first_read_after_its_doorbell():
    """rocm-ernic "runs the command synchronously inside the MMIO write, clears the doorbell
    to 0 and sets done = 1": the driver's first read of done after the doorbell reads 1, and
    each doorbell runs the command again."""
    async def scenario(sim):
        nic = await unprobed(sim)
        h, base = sim.host, nic.regs + IONIC_BAR0_DEV_CMD_REGS_OFFSET
        await h.mem_write(base + DEV_CMD_CMD, cmd_bytes(IONIC_CMD_NOP))
        await h.mem_write32(base + DEV_CMD_DONE, 0)
        await h.mem_write32(base + DEV_CMD_DOORBELL, 1)
        first = (await h.mem_read32(base + DEV_CMD_DONE), await h.mem_read32(base + DEV_CMD_DOORBELL))
        await h.mem_write32(base + DEV_CMD_DOORBELL, 1)
        await h.mem_read32(base + DEV_CMD_DONE)  # the read follows the posted write
        return first

    res = run_ok(scenario, ionic_platform({}))
    assert res.result == (1, 0)
    assert [e["cmd"] for e in res.events("devcmd", path="ep0")] == ["NOP", "NOP"]
    assert res.events("devcmd_ignored") == []


def test_with_a_firmware_delay_a_second_doorbell_while_a_command_runs_is_ignored():
    """ionic.devcmd_ps models a silicon-like firmware's handling time (0 by default, as
    rocm-ernic): while it runs, done reads 0 and another doorbell is ignored."""
    async def scenario(sim):
        nic = await unprobed(sim)
        h, base = sim.host, nic.regs + IONIC_BAR0_DEV_CMD_REGS_OFFSET
        await h.mem_write(base + DEV_CMD_CMD, cmd_bytes(IONIC_CMD_NOP))
        await h.mem_write32(base + DEV_CMD_DOORBELL, 1)
        early = await h.mem_read32(base + DEV_CMD_DONE)
        await h.mem_write32(base + DEV_CMD_DOORBELL, 1)
        await sim.sleep(us(20))
        return early, await h.mem_read32(base + DEV_CMD_DONE)

    res = run_ok(scenario, ionic_platform({}, timing={"ionic.devcmd_ps": 2000000}))
    assert res.result == (0, 1)
    assert len(res.events("devcmd", path="ep0")) == 1
    assert [e["reason"] for e in res.events("devcmd_ignored")] == ["a command is still running"]


def test_the_probe_follows_linux_order():
    async def scenario(sim):
        _, (nic,) = await bring_up(sim, open_=False)
        return nic.mac

    res = run_ok(scenario, ionic_platform({}))
    window = [e["cmd"] for e in res.events("devcmd", path="ep0")]
    assert window == ["RESET", "IDENTIFY", "LIF_IDENTIFY", "INIT", "PORT_IDENTIFY", "PORT_INIT", "PORT_SETATTR",
                      "LIF_IDENTIFY", "Q_IDENTIFY", "Q_IDENTIFY", "Q_IDENTIFY", "Q_IDENTIFY", "LIF_INIT", "Q_INIT"]
    adminq = [e["cmd"] for e in res.events("adminq_cmd", path="ep0")]
    assert adminq == ["Q_INIT", "LIF_SETATTR", "LIF_GETATTR", "RX_FILTER_ADD", "LIF_SETATTR"]
    assert res.result == bytes.fromhex("02a0d1000001")


def test_an_access_straddling_the_msix_boundaries_is_unsupported():
    # rocm-ernic: "MSI-X table at 0x8000, PBA at 0xA000 ... An access that straddles 0x8000
    # fails with EINVAL." Here the PCIe answer to an access the device does not support: UR
    # (all-ones data) for a read, a posted write dropped, each logged. A request reaches the
    # device whole where no 4 KiB or Max_Read_Request_Size boundary splits it: 8 bytes at
    # 0x7FFC as one TLP (what a vfio-user client hands rocm-ernic), or across the PBA's end
    # from the CPU. The root complex splits a CPU's 8 bytes at 0x7FFC into two requests, each
    # wholly on one side, and each is served.
    async def scenario(sim):
        nic = await unprobed(sim)
        h, bar = sim.host, nic.bar0.base
        out = {}
        entry0 = (await h.mem_read(bar + 0x8000, 16)).data
        cpl = await h.send_tlp("MRd", address=bar + 0x7FFC, length=2, first_be=0xF, last_be=0xF)
        out["one MRd across 0x8000"] = (cpl.status, cpl.data)
        await h.send_tlp("MWr", b"\x11" * 8, address=bar + 0x7FFC, length=2, first_be=0xF, last_be=0xF)
        cpl = await h.mem_read(bar + 0xA004, 8)
        out["CPU read across the PBA's end"] = (cpl.status, cpl.data)
        await h.mem_write(bar + 0xA004, b"\x22" * 8)
        cpl = await h.mem_read(bar + 0x8000, 16)
        out["entry 0 after the writes"] = (cpl.status, cpl.data == entry0)
        cpl = await h.mem_read(bar + 0x7FFC, 8)     # split at 0x8000 by the root complex
        out["CPU read across 0x8000"] = (cpl.status, cpl.data == bytes(4) + entry0[:4])
        cpl = await h.mem_read(bar + 0xA000, 8)     # the PBA whole
        out["PBA"] = cpl.status
        await sim.sleep(us(1))
        return out

    res = run_ok(scenario, ionic_platform({}))
    assert res.result == {"one MRd across 0x8000": ("UR", b"\xff" * 8),
                          "CPU read across the PBA's end": ("UR", b"\xff" * 8),
                          "entry 0 after the writes": ("SC", True),
                          "CPU read across 0x8000": ("SC", True), "PBA": "SC"}
    urs = [(e["type"], e["reason"]) for e in res.events("unsupported_request", path="ep0")]
    assert urs == [("MRd", "request straddles the boundary of msix_table"),
                   ("MWr", "request straddles the boundary of msix_table"),
                   ("MRd", "request straddles the boundary of msix_pba"),
                   ("MWr", "request straddles the boundary of msix_pba")]


def test_port_identify_zeroes_the_data_area():
    # rocm-ernic: "PORT_IDENTIFY | 10 | dev | success, zero data": not the previous command's
    # bytes (here LIF_IDENTIFY's identity) left in the data area.
    async def scenario(sim):
        nic = await unprobed(sim)
        await nic.dev_cmd(cmd_bytes(IONIC_CMD_LIF_IDENTIFY, [(1, "B", 0), (2, "B", 1)]))
        before = await nic.dev_cmd_data(DEV_CMD_DATA_BYTES)
        comp = await nic.dev_cmd(cmd_bytes(IONIC_CMD_PORT_IDENTIFY))
        return before[:8], comp[COMP_STATUS], await nic.dev_cmd_data(DEV_CMD_DATA_BYTES)

    before, status, after = run_ok(scenario, ionic_platform({})).result
    assert struct.unpack("<Q", before)[0] == IONIC_LIF_CAP_ETH | IONIC_LIF_CAP_RDMA
    assert status == 0 and after == bytes(DEV_CMD_DATA_BYTES)
