// rtl_dma_reader: the copy's read side. It issues Memory Read requests for the source, in order,
// each inside one naturally aligned Max_Read_Request_Size block (so no request exceeds MRRS or
// crosses a 4 KiB boundary: PCIe r5.0 §2.2.7, §7.5.3.4), with one tag per request out of TAGS,
// while the buffer has room for the request's bytes; and it takes the completions (§2.3.1.1),
// which may be split and, between requests, come in any order, writing their bytes into the
// buffer where the writer will find them.
//
// Requests are kept in a ring indexed by their tag, issued at `tail` and retired at `head` in
// issue order once all their bytes have arrived, which moves `frontier` (the copy offset below
// which every byte is in the buffer) forward.
//
// The buffer holds the copy's byte q at position p = q + dst_lo2, so that the writer reads whole
// destination-aligned DWs; position p lives in word p / 4 (modulo the buffer), lane p % 4. A
// request for [q, q + n) may be issued only when q + n + dst_lo2 <= wr_pos + buffer size: the
// writer has sent everything below wr_pos.
//
// A completion is checked against its request: Completion Status (UR, CA: the copy fails with
// CAUSE_CPL_STATUS), Byte Count (the bytes still owed) and Lower Address (the next byte's
// address), a mismatch failing it with CAUSE_CPL_MALFORMED. A completion for a tag that is not
// outstanding is ignored.
module rtl_dma_reader
  import rtl_dma_pkg::*;
#(
  parameter int unsigned TAGS = 8,
  parameter int unsigned BUF_LOG2 = 13
) (
  input  logic             clk,
  input  logic             rst,
  input  logic             start,        // a pulse: a copy starts (nothing is outstanding)
  input  logic             run,          // requests may be issued
  input  logic [63:0]      src,
  input  logic [LEN_W-1:0] len,
  input  logic [1:0]       dst_lo2,
  input  logic [12:0]      mrrs,         // bytes: 128..4096
  input  logic             bus_master,
  input  logic [15:0]      cfg_id,
  input  logic [LEN_W:0]   wr_pos,
  output logic [LEN_W-1:0] frontier,
  // Completions from the receive side.
  // The header's fields a completion's consumer needs (Fmt/Length, status/Byte Count, tag/Lower
  // Address); the rest goes unused.
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [31:0]      hdr0,
  input  logic [31:0]      hdr1,
  input  logic [31:0]      hdr2,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic             cpl_hdr_valid,
  input  logic             pay_valid,
  input  logic [31:0]      pay_data,
  input  logic             pay_req,
  // Requests to the transmit arbiter.
  output logic             tx_valid,
  input  logic             tx_ready,
  output logic [31:0]      tx_data,
  output logic             tx_last,
  // The buffer's write ports.
  output logic [3:0]            buf_we,
  output logic [BUF_LOG2-3:0]   buf_waddr [4],
  output logic [7:0]            buf_wdata [4],
  // State for the control.
  output logic             quiet,        // nothing outstanding, no request being sent
  output logic             blocked,      // a request is due but Bus Master Enable is clear
  output logic             err,          // a pulse: a completion failed the copy
  output logic [2:0]       err_cause,
  output logic [2:0]       err_status,
  output logic             active        // can make progress without input
);
  localparam int unsigned TAG_W = $clog2(TAGS);
  localparam int unsigned BUF_BYTES = 2 ** BUF_LOG2;

  // -- The ring of requests ---------------------------------------------------------------------
  logic [LEN_W-1:0] slot_q   [TAGS];  // copy offset of the request's first byte
  logic [12:0]      slot_len [TAGS];  // its bytes
  logic [12:0]      slot_rcv [TAGS];  // bytes received so far
  logic [TAGS-1:0]  slot_done, slot_err;
  logic [TAG_W:0]   head, tail, count;
  logic [LEN_W-1:0] next_q;           // the next request's first byte
  assign count = tail - head;

  // -- Issuing ------------------------------------------------------------------------------------
  logic [63:0]      req_addr;
  logic [12:0]      blk_left, req_n;
  logic [LEN_W-1:0] remaining;
  logic [LEN_W+1:0] need, room;
  logic             want;
  assign req_addr  = src + 64'(next_q);
  assign blk_left  = mrrs - (req_addr[12:0] & (mrrs - 13'd1));
  assign remaining = len - next_q;
  assign req_n     = remaining < LEN_W'(blk_left) ? remaining[12:0] : blk_left;
  assign need      = (LEN_W+2)'(next_q) + (LEN_W+2)'(req_n) + (LEN_W+2)'(dst_lo2);
  assign room      = (LEN_W+2)'(wr_pos) + (LEN_W+2)'(BUF_BYTES);
  assign want      = run && next_q != len && count != (TAG_W+1)'(TAGS) && need <= room && !tx_valid;
  assign blocked   = want && !bus_master;

  logic [1:0]  last_lane;
  logic [10:0] len_dw;
  logic [7:0]  be;
  logic        four_dw;
  assign last_lane = 2'(13'(req_addr[1:0]) + req_n - 13'd1);
  assign len_dw    = 11'((13'(req_addr[1:0]) + req_n + 13'd3) >> 2);
  assign be        = byte_enables(req_addr[1:0], last_lane, len_dw == 11'd1);
  assign four_dw   = req_addr[63:32] != 32'd0;

  logic [31:0] req_hdr [4];
  logic [1:0]  req_beat;
  logic        req_four;
  assign tx_data = req_hdr[req_beat];
  assign tx_last = req_beat == (req_four ? 2'd3 : 2'd2);

  // -- Receiving ----------------------------------------------------------------------------------
  logic [TAG_W-1:0] ctag;
  logic             in_flight;
  logic [12:0]      owed, bc, carried, here;
  logic [10:0]      cpl_len_dw;
  logic [6:0]       expect_la;
  assign ctag        = hdr2[8 +: TAG_W];
  assign in_flight   = hdr2[15:8] < 8'(TAGS) && (TAG_W+1)'(ctag - head[TAG_W-1:0]) < count && !slot_done[ctag];
  assign owed        = slot_len[ctag] - slot_rcv[ctag];
  assign bc          = {hdr1[11:0] == 12'd0, hdr1[11:0]};
  assign cpl_len_dw  = {hdr0[9:0] == 10'd0, hdr0[9:0]};
  assign carried     = {cpl_len_dw, 2'b00} - 13'(hdr2[1:0]);
  assign here        = carried < bc ? carried : bc;
  assign expect_la   = src[6:0] + 7'(slot_q[ctag]) + 7'(slot_rcv[ctag]);  // the next byte's address

  // The completion whose payload is arriving. Offsets are kept 4 above the copy offset, so the
  // first DW's bytes before the copy's first byte stay non-negative.
  logic             cur_valid;
  logic [TAG_W-1:0] cur_tag;
  logic [LEN_W+1:0] cur_first4, cur_end4, cur_beat4;  // copy offsets + 4
  logic [12:0]      cur_bytes;
  logic [10:0]      cur_left;                          // payload DWs still to come

  always_comb begin
    logic [LEN_W+1:0] qo, po;
    logic [1:0]       b;
    for (int lane = 0; lane < 4; lane++) begin
      // The beat's byte that falls in this lane.
      b  = 2'(lane) - (cur_beat4[1:0] + dst_lo2);
      qo = cur_beat4 + (LEN_W+2)'(b);
      po = qo + (LEN_W+2)'(dst_lo2);
      buf_we[lane]    = cur_valid && pay_valid && !pay_req && qo >= cur_first4 && qo < cur_end4;
      buf_waddr[lane] = (BUF_LOG2-2)'((po >> 2) - (LEN_W+2)'(1));
      buf_wdata[lane] = pay_data[8*b +: 8];
    end
  end

  // -- Retiring -----------------------------------------------------------------------------------
  logic [TAG_W-1:0] head_tag;
  logic             retire;
  assign head_tag = head[TAG_W-1:0];
  assign retire   = count != '0 && slot_done[head_tag];

  assign quiet  = count == '0 && !tx_valid;
  assign active = tx_valid || want || retire;

  always_ff @(posedge clk) begin
    err <= 1'b0;
    if (rst) begin
      head      <= '0;
      tail      <= '0;
      next_q    <= '0;
      frontier  <= '0;
      tx_valid  <= 1'b0;
      cur_valid <= 1'b0;
      slot_done <= '0;
      slot_err  <= '0;
    end else begin
      if (start) begin
        head     <= '0;
        tail     <= '0;
        next_q   <= '0;
        frontier <= '0;
      end
      // Issue a request: its header into the transmit register, its record into the ring.
      if (want && bus_master) begin
        req_hdr[0] <= dw0(four_dw ? FMT_4DW : FMT_3DW, TYPE_MEM, len_dw[9:0]);
        req_hdr[1] <= {cfg_id, 8'(tail[TAG_W-1:0]), be};
        req_hdr[2] <= four_dw ? req_addr[63:32] : {req_addr[31:2], 2'b00};
        req_hdr[3] <= {req_addr[31:2], 2'b00};
        req_four   <= four_dw;
        req_beat   <= 2'd0;
        tx_valid   <= 1'b1;
        slot_q[tail[TAG_W-1:0]]   <= next_q;
        slot_len[tail[TAG_W-1:0]] <= req_n;
        slot_rcv[tail[TAG_W-1:0]] <= '0;
        slot_done[tail[TAG_W-1:0]] <= 1'b0;
        slot_err[tail[TAG_W-1:0]]  <= 1'b0;
        tail   <= tail + 1'b1;
        next_q <= next_q + LEN_W'(req_n);
      end
      if (tx_valid && tx_ready) begin
        req_beat <= req_beat + 2'd1;
        if (tx_last) tx_valid <= 1'b0;
      end
      // A completion's header.
      if (cpl_hdr_valid && in_flight) begin
        if (hdr1[15:13] != CPL_SC) begin
          slot_done[ctag] <= 1'b1;
          slot_err[ctag]  <= 1'b1;
          err        <= 1'b1;
          err_cause  <= CAUSE_CPL_STATUS;
          err_status <= hdr1[15:13];
        end else if (!hdr0[30] || bc != owed || hdr2[6:0] != expect_la) begin
          slot_done[ctag] <= 1'b1;
          slot_err[ctag]  <= 1'b1;
          err        <= 1'b1;
          err_cause  <= CAUSE_CPL_MALFORMED;
          err_status <= CPL_SC;
        end else begin
          cur_valid  <= 1'b1;
          cur_tag    <= ctag;
          cur_first4 <= (LEN_W+2)'(slot_q[ctag]) + (LEN_W+2)'(slot_rcv[ctag]) + (LEN_W+2)'(4);
          cur_end4   <= (LEN_W+2)'(slot_q[ctag]) + (LEN_W+2)'(slot_rcv[ctag]) + (LEN_W+2)'(here) + (LEN_W+2)'(4);
          cur_beat4  <= (LEN_W+2)'(slot_q[ctag]) + (LEN_W+2)'(slot_rcv[ctag]) + (LEN_W+2)'(4) - (LEN_W+2)'(hdr2[1:0]);
          cur_bytes  <= here;
          cur_left   <= cpl_len_dw;
        end
      end
      // Its payload, a DW a beat: the bytes go to the buffer (above); at its last DW the bytes
      // count for the request.
      if (cur_valid && pay_valid && !pay_req) begin
        cur_beat4 <= cur_beat4 + (LEN_W+2)'(4);
        cur_left  <= cur_left - 11'd1;
        if (cur_left == 11'd1) begin
          cur_valid <= 1'b0;
          slot_rcv[cur_tag] <= slot_rcv[cur_tag] + cur_bytes;
          if (slot_rcv[cur_tag] + cur_bytes == slot_len[cur_tag]) slot_done[cur_tag] <= 1'b1;
        end
      end
      // Retire the oldest request once complete: its bytes join the frontier.
      if (retire) begin
        head <= head + 1'b1;
        if (!slot_err[head_tag]) frontier <= slot_q[head_tag] + LEN_W'(slot_len[head_tag]);
      end
    end
  end
endmodule
