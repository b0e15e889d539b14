// rtl_dma_writer: the copy's write side. It sends the buffer's bytes to the destination as
// Memory Writes, in order, each inside one naturally aligned Max_Payload_Size block (so none
// exceeds MPS or crosses a 4 KiB boundary: PCIe r5.0 §2.2.2, §2.2.7), once the reader's frontier
// has passed the block's last byte. Payload DWs are destination-aligned words of the buffer (the
// copy's byte q at position q + dst_lo2), the bytes outside the write masked by its byte enables.
module rtl_dma_writer
  import rtl_dma_pkg::*;
#(
  parameter int unsigned BUF_LOG2 = 13
) (
  input  logic                clk,
  input  logic                rst,
  input  logic                start,      // a pulse: a copy starts
  input  logic                run,        // writes may be issued
  input  logic [63:0]         dst,
  input  logic [LEN_W-1:0]    len,
  input  logic [12:0]         mps,        // bytes: 128..512
  input  logic                bus_master,
  input  logic [15:0]         cfg_id,
  input  logic [LEN_W-1:0]    frontier,
  output logic [LEN_W:0]      wr_pos,     // buffer positions below this have been sent
  // The buffer's read port.
  output logic [BUF_LOG2-3:0] buf_raddr,
  input  logic [31:0]         buf_rdata,
  // Writes to the transmit arbiter.
  output logic                tx_valid,
  input  logic                tx_ready,
  output logic [31:0]         tx_data,
  output logic                tx_last,
  // State for the control.
  output logic                finished,   // every byte has been sent
  output logic                blocked,    // a write is due but Bus Master Enable is clear
  output logic                active      // can make progress without input
);
  logic [LEN_W-1:0] next_q;  // the next write's first byte

  logic [63:0]      addr;
  logic [12:0]      blk_left, n;
  logic [LEN_W-1:0] remaining, chunk_end;
  logic             want;
  assign addr      = dst + 64'(next_q);
  assign blk_left  = mps - (addr[12:0] & (mps - 13'd1));
  assign remaining = len - next_q;
  assign n         = remaining < LEN_W'(blk_left) ? remaining[12:0] : blk_left;
  assign chunk_end = next_q + LEN_W'(n);
  assign want      = run && next_q != len && frontier >= chunk_end && !tx_valid;
  assign blocked   = want && !bus_master;
  assign finished  = next_q == len && !tx_valid;
  assign active    = tx_valid || want;

  logic [1:0]  last_lane;
  logic [10:0] len_dw;
  logic [7:0]  be;
  logic        four_dw;
  assign last_lane = 2'(13'(addr[1:0]) + n - 13'd1);
  assign len_dw    = 11'((13'(addr[1:0]) + n + 13'd3) >> 2);
  assign be        = byte_enables(addr[1:0], last_lane, len_dw == 11'd1);
  assign four_dw   = addr[63:32] != 32'd0;

  // The write being sent.
  logic [31:0]        hdr [4];
  logic [10:0]        beat, hdr_beats, beats, pay_index;
  logic [LEN_W:0]     word0;      // buffer position of its first payload DW / 4
  logic [LEN_W-1:0]   end_q;
  logic [LEN_W:0]     end_pos;
  assign tx_data   = beat < hdr_beats ? hdr[beat[1:0]] : buf_rdata;
  assign tx_last   = beat == beats - 11'd1;
  assign pay_index = beat - hdr_beats;
  assign buf_raddr = (BUF_LOG2-2)'(word0 + (LEN_W+1)'(pay_index));
  assign end_pos   = (LEN_W+1)'(end_q) + (LEN_W+1)'(dst[1:0]);

  always_ff @(posedge clk) begin
    if (rst) begin
      next_q   <= '0;
      wr_pos   <= '0;
      tx_valid <= 1'b0;
    end else begin
      if (start) begin
        next_q <= '0;
        wr_pos <= '0;
      end
      if (want && bus_master) begin
        hdr[0]    <= dw0(four_dw ? FMT_4DW_DATA : FMT_3DW_DATA, TYPE_MEM, len_dw[9:0]);
        hdr[1]    <= {cfg_id, 8'd0, be};
        hdr[2]    <= four_dw ? addr[63:32] : {addr[31:2], 2'b00};
        hdr[3]    <= {addr[31:2], 2'b00};
        hdr_beats <= four_dw ? 11'd4 : 11'd3;
        beats     <= (four_dw ? 11'd4 : 11'd3) + len_dw;
        beat      <= '0;
        word0     <= ((LEN_W+1)'(next_q) + (LEN_W+1)'(dst[1:0])) >> 2;
        end_q     <= chunk_end;
        tx_valid  <= 1'b1;
      end
      if (tx_valid && tx_ready) begin
        beat <= beat + 11'd1;
        if (tx_last) begin
          tx_valid <= 1'b0;
          next_q   <= end_q;
          wr_pos   <= end_pos & ~(LEN_W+1)'(3);  // a partly sent DW stays
        end
      end
    end
  end
endmodule
