"""Driver helpers for the test endpoint (models/testep/test_endpoint.h): register offsets and
a DMA helper. BAR0 holds the registers, BAR2 the device memory the DMA engine uses."""
from dpusim.errors import PollTimeout

TEP_ID = 0x00
TEP_SCRATCH = 0x04
TEP_DMA_HOST_LO = 0x08
TEP_DMA_HOST_HI = 0x0C
TEP_DMA_LOCAL = 0x10
TEP_DMA_LEN = 0x14
TEP_DMA_CTRL = 0x18
TEP_DMA_STATUS = 0x1C
TEP_IRQ_RAISE = 0x20
TEP_DMA_COUNT = 0x24
TEP_DMA_CTRL_START = 1 << 0
TEP_DMA_CTRL_TO_HOST = 1 << 1
TEP_DMA_CTRL_IRQ = 1 << 2
TEP_DMA_STATUS_BUSY = 1 << 0
TEP_DMA_STATUS_DONE = 1 << 1
TEP_DMA_STATUS_ERROR = 1 << 2
TEST_ENDPOINT_ID = 0x7E57E9D0
VENDOR_ID, DEVICE_ID = 0x1234, 0x7E57
MSIX_TABLE, MSIX_PBA, MSIX_VECTORS = 0x2000, 0x3000, 32


def bar(dev, index):
    return next(b.base for b in dev.bars if b.index == index)


async def start_dma(sim, dev, host_addr, local, length, to_host, vector=None):
    """Programs and starts one transfer; with `vector`, the engine raises it when done."""
    regs = bar(dev, 0)
    h = sim.host
    await h.mem_write32(regs + TEP_DMA_HOST_LO, host_addr & 0xFFFFFFFF)
    await h.mem_write32(regs + TEP_DMA_HOST_HI, host_addr >> 32)
    await h.mem_write32(regs + TEP_DMA_LOCAL, local)
    await h.mem_write32(regs + TEP_DMA_LEN, length)
    ctrl = TEP_DMA_CTRL_START | (TEP_DMA_CTRL_TO_HOST if to_host else 0)
    if vector is not None:
        ctrl |= TEP_DMA_CTRL_IRQ | vector << 8
    await h.mem_write32(regs + TEP_DMA_CTRL, ctrl)


async def wait_dma(sim, dev, poll_ps=1_000_000, limit_ps=1_000_000_000):
    """Polls DMA_STATUS every `poll_ps` until busy clears; returns the status. TimeoutError once
    `limit_ps` of waits have passed with the engine still busy."""
    regs = bar(dev, 0)
    try:
        polled = await sim.poll(lambda: sim.host.mem_read32(regs + TEP_DMA_STATUS),
                                lambda status: not status & TEP_DMA_STATUS_BUSY, poll_ps, limit_ps,
                                f"DMA of {dev.bdf} done", counts="waits", give_up="before_wait")
    except PollTimeout:
        raise TimeoutError(f"DMA of {dev.bdf} still busy after {limit_ps} ps") from None
    return polled.value


# The pcie-bench engine (models/testep/bench_engine.h), BAR0 0x100.
TEP_BENCH_CTRL = 0x100
TEP_BENCH_SIZE = 0x104
TEP_BENCH_COUNT = 0x108
TEP_BENCH_WINDOW = 0x10C
TEP_BENCH_OUTSTANDING = 0x110
TEP_BENCH_HOST_LO = 0x114
TEP_BENCH_HOST_HI = 0x118
TEP_BENCH_STATUS = 0x11C
TEP_BENCH_ELAPSED_LO = 0x120
TEP_BENCH_ELAPSED_HI = 0x124
TEP_BENCH_LAT_MIN = 0x128
TEP_BENCH_LAT_MED = 0x12C
TEP_BENCH_LAT_MAX = 0x130
TEP_BENCH_DONE = 0x134
TEP_BENCH_STATUS_BUSY, TEP_BENCH_STATUS_DONE, TEP_BENCH_STATUS_ERROR = 1, 2, 4
BENCH_TESTS = {"LAT_RD": 0, "BW_RD": 1, "BW_WR": 2, "LAT_WRRD": 3}


async def run_bench(sim, dev, test, size, count, host_addr, window=8192, outstanding=1, poll_ps=20_000_000):
    """Runs one pcie-bench experiment on the test endpoint `dev` and waits for it (polling its
    status every `poll_ps`); returns a dict of its results: elapsed_ps, done, lat_min_ns,
    lat_med_ns, lat_max_ns (the latencies of LAT_RD and LAT_WRRD)."""
    regs = bar(dev, 0)
    h = sim.host
    for off, v in ((TEP_BENCH_SIZE, size), (TEP_BENCH_COUNT, count), (TEP_BENCH_WINDOW, window),
                   (TEP_BENCH_OUTSTANDING, outstanding), (TEP_BENCH_HOST_LO, host_addr & 0xFFFFFFFF),
                   (TEP_BENCH_HOST_HI, host_addr >> 32)):
        await h.mem_write32(regs + off, v)
    await h.mem_write32(regs + TEP_BENCH_CTRL, 1 | BENCH_TESTS[test] << 1)
    while True:
        await sim.sleep(poll_ps)
        status = await h.mem_read32(regs + TEP_BENCH_STATUS)
        if not status & TEP_BENCH_STATUS_BUSY:
            break
    if status & TEP_BENCH_STATUS_ERROR:
        raise RuntimeError(f"pcie-bench {test} {size} B on {dev.bdf} ended with an error (see its bench_error event)")
    out = {}
    for key, off in (("lo", TEP_BENCH_ELAPSED_LO), ("hi", TEP_BENCH_ELAPSED_HI), ("lat_min_ns", TEP_BENCH_LAT_MIN),
                     ("lat_med_ns", TEP_BENCH_LAT_MED), ("lat_max_ns", TEP_BENCH_LAT_MAX), ("done", TEP_BENCH_DONE)):
        out[key] = await h.mem_read32(regs + off)
    out["elapsed_ps"] = out.pop("hi") << 32 | out.pop("lo")
    return out
