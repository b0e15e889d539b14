// The DMA endpoint's sources in compile order (verilator -f): the package first, the top last.
rtl_dma_pkg.sv
rtl_dma_rx.sv
rtl_dma_regs.sv
rtl_dma_buffer.sv
rtl_dma_reader.sv
rtl_dma_writer.sv
rtl_dma_ctrl.sv
rtl_dma_tx_arb.sv
rtl_dma.sv
