// rtl_dma: a PCIe endpoint function's application logic behind a hard IP core's TLP streams: a
// doorbell-driven DMA engine that copies DMA_LEN bytes from host address DMA_SRC to DMA_DST and
// raises MSI-X vector 0 when a copy ends. Registers in BAR0 (rtl_dma_pkg); the copy's reads are
// Memory Reads of at most Max_Read_Request_Size with up to TAGS outstanding, its writes Memory
// Writes of at most Max_Payload_Size (capped at 512 bytes, the function's Max_Payload_Size
// Supported), neither crossing a 4 KiB boundary.
//
// The hard IP core (docs/cosim.md) keeps the configuration space, the MSI-X table and PBA and the
// completion timeout, and hands the block:
//   rx_*   TLPs for it (memory requests to the register window, completions of its reads), one
//          DW a beat: the header's 3 or 4 DWs (spec bit numbering: Fmt/Type in DW0[31:24]), then
//          the payload DWs (byte i of a DW in bits [8i+7:8i], as memory holds them); `last` on a
//          TLP's final beat. rx_ready depends on registers only.
//   tx_*   its TLPs in the same layout: read completions, the copy's MRd and MWr.
//          tx_valid and tx_data do not depend on tx_ready within a cycle.
//   irq_*  an MSI-X request (valid/ready) for vector irq_vector; the core sends the message, or
//          sets the pending bit of a masked vector. Requested only after the copy's last write
//          has left on tx, so the message follows the data.
//   cfg_*  the function's routing ID, Bus Master Enable, and Device Control's Max_Payload_Size
//          and Max_Read_Request_Size fields (PCIe r5.0 §7.5.3.4: 0 = 128 bytes ... 5 = 4096).
//   cactive  the block needs the clock (the AMBA low-power interface's CACTIVE): low only when
//          nothing can happen until an input changes, so the core may stop the clock.
// Streams follow the AXI4-Stream handshake. Reset (rst) is synchronous, active high.
module rtl_dma
  import rtl_dma_pkg::*;
#(
  parameter int unsigned TAGS = 8,       // reads outstanding: tags 0..TAGS-1, a power of two up to 32
  parameter int unsigned BUF_LOG2 = 13   // buffer bytes: 8 KiB holds a 4 KiB read and a 512-byte write
) (
  input  logic        clk,
  input  logic        rst,
  input  logic        rx_valid,
  output logic        rx_ready,
  input  logic [31:0] rx_data,
  input  logic        rx_last,
  output logic        tx_valid,
  input  logic        tx_ready,
  output logic [31:0] tx_data,
  output logic        tx_last,
  output logic        irq_valid,
  input  logic        irq_ready,
  output logic [4:0]  irq_vector,
  input  logic [15:0] cfg_id,
  input  logic        cfg_bus_master,
  input  logic [2:0]  cfg_max_payload,
  input  logic [2:0]  cfg_max_read_req,
  output logic        cactive
);
  // The buffer must hold a whole read of 4 KiB and a write of 512 bytes with their DW offsets,
  // or the writer could wait for bytes the reader has no room to request.
  if (BUF_LOG2 < 13 || BUF_LOG2 > LEN_W) $error("rtl_dma: BUF_LOG2 must be 13..%0d", LEN_W);
  if (TAGS < 1 || TAGS > 32 || (TAGS & (TAGS - 1)) != 0) $error("rtl_dma: TAGS must be a power of two up to 32");

  logic [12:0] mps, mrrs;
  assign mps  = 13'd128 << (cfg_max_payload > 3'd2 ? 3'd2 : cfg_max_payload);
  assign mrrs = 13'd128 << (cfg_max_read_req > 3'd5 ? 3'd5 : cfg_max_read_req);
  assign irq_vector = 5'd0;

  // Receive side.
  logic [31:0] hdr0, hdr1, hdr2, hdr3, pay_data;
  logic        req_hdr_valid, req_hdr_ready, cpl_hdr_valid, pay_valid, pay_req;
  rtl_dma_rx rx (
    .clk, .rst, .s_valid(rx_valid), .s_ready(rx_ready), .s_data(rx_data), .s_last(rx_last),
    .hdr0, .hdr1, .hdr2, .hdr3, .req_hdr_valid, .req_hdr_ready, .cpl_hdr_valid,
    .pay_valid, .pay_data, .pay_req
  );

  // Transmit sources: 0 completions, 1 writes, 2 reads.
  logic [2:0]  src_valid, src_ready, src_last;
  logic [31:0] src_data [3];
  rtl_dma_tx_arb #(.N(3)) arb (
    .clk, .rst, .s_valid(src_valid), .s_ready(src_ready), .s_data(src_data), .s_last(src_last),
    .m_valid(tx_valid), .m_ready(tx_ready), .m_data(tx_data), .m_last(tx_last)
  );

  // Registers.
  logic             irq_en, doorbell, busy, done_set, err_set, regs_active;
  logic [63:0]      src, dst;
  logic [LEN_W-1:0] len;
  logic [2:0]       err_cause, err_status;
  rtl_dma_regs #(.TAGS(TAGS), .BUF_LOG2(BUF_LOG2)) regs (
    .clk, .rst, .cfg_id, .hdr0, .hdr1, .hdr2, .hdr3, .req_hdr_valid, .req_hdr_ready,
    .pay_valid(pay_valid && pay_req), .pay_data,
    .tx_valid(src_valid[0]), .tx_ready(src_ready[0]), .tx_data(src_data[0]), .tx_last(src_last[0]),
    .irq_en, .src, .dst, .len, .start(doorbell), .busy, .done_set, .err_set, .err_cause, .err_status,
    .active(regs_active)
  );

  // The engine: control, reader, buffer, writer.
  logic                start, run, rd_quiet, rd_blocked, rd_err, wr_finished, wr_blocked;
  logic                ctrl_active, rd_active, wr_active;
  logic [2:0]          rd_err_cause, rd_err_status;
  logic [LEN_W-1:0]    frontier;
  logic [LEN_W:0]      wr_pos;
  logic [3:0]          buf_we;
  logic [BUF_LOG2-3:0] buf_waddr [4];
  logic [BUF_LOG2-3:0] buf_raddr;
  logic [7:0]          buf_wdata [4];
  logic [31:0]         buf_rdata;

  rtl_dma_ctrl ctrl (
    .clk, .rst, .doorbell, .len, .irq_en, .bus_master(cfg_bus_master), .rd_quiet, .rd_blocked, .rd_err,
    .rd_err_cause, .rd_err_status, .wr_finished, .wr_blocked, .busy, .start, .run, .done_set, .err_set,
    .err_cause, .err_status, .irq_valid, .irq_ready, .active(ctrl_active)
  );

  rtl_dma_reader #(.TAGS(TAGS), .BUF_LOG2(BUF_LOG2)) reader (
    .clk, .rst, .start, .run, .src, .len, .dst_lo2(dst[1:0]), .mrrs, .bus_master(cfg_bus_master), .cfg_id,
    .wr_pos, .frontier, .hdr0, .hdr1, .hdr2, .cpl_hdr_valid, .pay_valid, .pay_data, .pay_req,
    .tx_valid(src_valid[2]), .tx_ready(src_ready[2]), .tx_data(src_data[2]), .tx_last(src_last[2]),
    .buf_we, .buf_waddr, .buf_wdata, .quiet(rd_quiet), .blocked(rd_blocked), .err(rd_err),
    .err_cause(rd_err_cause), .err_status(rd_err_status), .active(rd_active)
  );

  rtl_dma_buffer #(.DEPTH_LOG2(BUF_LOG2 - 2)) buffer (
    .clk, .we(buf_we), .waddr(buf_waddr), .wdata(buf_wdata), .raddr(buf_raddr), .rdata(buf_rdata)
  );

  rtl_dma_writer #(.BUF_LOG2(BUF_LOG2)) writer (
    .clk, .rst, .start, .run, .dst, .len, .mps, .bus_master(cfg_bus_master), .cfg_id, .frontier, .wr_pos,
    .buf_raddr, .buf_rdata,
    .tx_valid(src_valid[1]), .tx_ready(src_ready[1]), .tx_data(src_data[1]), .tx_last(src_last[1]),
    .finished(wr_finished), .blocked(wr_blocked), .active(wr_active)
  );

  assign cactive = req_hdr_valid || cpl_hdr_valid || regs_active || ctrl_active || rd_active || wr_active;
endmodule
