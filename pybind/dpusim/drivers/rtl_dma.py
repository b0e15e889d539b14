"""Driver helpers for the DMA endpoint whose logic is RTL (models/rtl/dma: hdl/rtl_dma.sv behind a
hard IP core, docs/cosim.md): its register map in BAR0 and a copy. The values equal
models/rtl/dma/rtl_dma_regs.h's."""
RTL_DMA_ID = 0x00
RTL_DMA_CTRL = 0x04
RTL_DMA_SRC_LO = 0x08
RTL_DMA_SRC_HI = 0x0C
RTL_DMA_DST_LO = 0x10
RTL_DMA_DST_HI = 0x14
RTL_DMA_LEN = 0x18
RTL_DMA_DOORBELL = 0x1C
RTL_DMA_STATUS = 0x20
RTL_DMA_COUNT = 0x24
RTL_DMA_PARAMS = 0x28
RTL_DMA_CTRL_IRQ_EN = 1 << 0
RTL_DMA_DOORBELL_START = 1 << 0
RTL_DMA_STATUS_BUSY = 1 << 0
RTL_DMA_STATUS_DONE = 1 << 1
RTL_DMA_STATUS_ERROR = 1 << 2
RTL_DMA_STATUS_OVERRUN = 1 << 3
RTL_DMA_STATUS_CAUSE_SHIFT = 4
RTL_DMA_STATUS_CPL_SHIFT = 8
RTL_DMA_CAUSE_LENGTH = 1
RTL_DMA_CAUSE_BUS_MASTER = 2
RTL_DMA_CAUSE_CPL_STATUS = 3
RTL_DMA_CAUSE_CPL_MALFORMED = 4
RTL_DMA_ID_VALUE = 0x444D4131  # "DMA1"
VENDOR_ID, DEVICE_ID, CLASS_DMA = 0x1234, 0x0D3A, 0x080100
MSIX_TABLE, MSIX_PBA, MSIX_VECTORS = 0x1000, 0x1800, 1


def regs(dev):
    """The host address of the registers (BAR0)."""
    return next(b.base for b in dev.bars if b.index == 0)


async def start_copy(sim, dev, src, dst, length, irq=True):
    """Programs a copy of `length` bytes from host address `src` to `dst` and rings the doorbell;
    with `irq`, the engine raises MSI-X vector 0 when the copy ends."""
    base = regs(dev)
    h = sim.host
    await h.mem_write32(base + RTL_DMA_SRC_LO, src & 0xFFFFFFFF)
    await h.mem_write32(base + RTL_DMA_SRC_HI, src >> 32)
    await h.mem_write32(base + RTL_DMA_DST_LO, dst & 0xFFFFFFFF)
    await h.mem_write32(base + RTL_DMA_DST_HI, dst >> 32)
    await h.mem_write32(base + RTL_DMA_LEN, length)
    await h.mem_write32(base + RTL_DMA_CTRL, RTL_DMA_CTRL_IRQ_EN if irq else 0)
    await h.mem_write32(base + RTL_DMA_DOORBELL, RTL_DMA_DOORBELL_START)


def error_cause(status):
    """(cause, completion status) of a DMA_STATUS value."""
    return (status >> RTL_DMA_STATUS_CAUSE_SHIFT) & 7, (status >> RTL_DMA_STATUS_CPL_SHIFT) & 7
