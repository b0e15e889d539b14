// rtl_dma_regs: the register file in BAR0 and its completer. Memory writes update registers (byte
// enables honoured, a poisoned write discarded: PCIe r5.0 §2.7.2.2); a memory read of up to
// MAX_READ_DW DWs is answered with one CplD carrying the registers' values at the time it is
// sent, a longer one with a Cpl of status Completer Abort (§2.3.1: a request the device's
// programming model does not support). The register map is rtl_dma_pkg's; addresses are taken
// modulo 4 KiB (the hard IP core sends only requests inside the register window).
//
// One completion is pending at a time: a read that arrives while one is being sent waits in the
// receive stream (req_hdr_ready low).
module rtl_dma_regs
  import rtl_dma_pkg::*;
#(
  parameter int unsigned TAGS = 8,
  parameter int unsigned BUF_LOG2 = 13,
  parameter int unsigned MAX_READ_DW = 16
) (
  input  logic             clk,
  input  logic             rst,
  input  logic [15:0]      cfg_id,          // the function's captured routing ID
  // Requests from the receive side.
  // The header's fields a request's completer needs; the rest (the address above the register
  // window among them) goes unused.
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [31:0]      hdr0,
  input  logic [31:0]      hdr1,
  input  logic [31:0]      hdr2,
  input  logic [31:0]      hdr3,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic             req_hdr_valid,
  output logic             req_hdr_ready,
  input  logic             pay_valid,
  input  logic [31:0]      pay_data,
  // Completions to the transmit arbiter.
  output logic             tx_valid,
  input  logic             tx_ready,
  output logic [31:0]      tx_data,
  output logic             tx_last,
  // The copy's parameters and the doorbell.
  output logic             irq_en,
  output logic [63:0]      src,
  output logic [63:0]      dst,
  output logic [LEN_W-1:0] len,
  output logic             start,           // a pulse: the doorbell rang while idle
  // The engine's state and its ends.
  input  logic             busy,
  input  logic             done_set,        // a pulse: the copy completed
  input  logic             err_set,         // a pulse: the copy ended in error
  input  logic [2:0]       err_cause,
  input  logic [2:0]       err_status,
  output logic             active           // a completion is pending
);
  logic        done_q, error_q, overrun_q;
  logic [2:0]  cause_q, status_q;
  logic [31:0] count_q;

  // -- The write path: the request's header, then its payload DWs --------------------------------
  logic       four_dw, is_write;
  logic [9:0] hdr_word;
  logic [10:0] hdr_len;
  assign four_dw  = hdr0[29];
  assign is_write = hdr0[30];
  assign hdr_word = four_dw ? hdr3[11:2] : hdr2[11:2];
  assign hdr_len  = {hdr0[9:0] == 10'd0, hdr0[9:0]};

  logic        wr_active, wr_poisoned;
  logic [9:0]  wr_word;
  logic [10:0] wr_left;
  logic [3:0]  wr_first_be, wr_last_be;
  logic        wr_first;

  logic [3:0]  be;
  logic [31:0] mask, merged_cur;
  assign be   = wr_first ? wr_first_be : (wr_left == 11'd1 ? wr_last_be : 4'hf);
  assign mask = {{8{be[3]}}, {8{be[2]}}, {8{be[1]}}, {8{be[0]}}};

  // -- The read path: one completion being sent -----------------------------------------------
  logic        cpl_pending;
  logic [31:0] cpl_hdr [3];
  logic [10:0] cpl_beat, cpl_beats;
  logic [9:0]  cpl_word;

  // Nothing passes a pending completion: a later write must not change what an earlier read
  // returns.
  assign req_hdr_ready = !cpl_pending;
  assign active        = cpl_pending;

  function automatic logic [31:0] reg_value(logic [9:0] w);
    case (w)
      REG_ID:     return ID_VALUE;
      REG_CTRL:   return {31'd0, irq_en};
      REG_SRC_LO: return src[31:0];
      REG_SRC_HI: return src[63:32];
      REG_DST_LO: return dst[31:0];
      REG_DST_HI: return dst[63:32];
      REG_LEN:    return {{(32 - LEN_W){1'b0}}, len};
      REG_STATUS: begin
        logic [31:0] v;
        v = {21'd0, status_q, 1'b0, cause_q, 4'd0};
        v[STATUS_BUSY]    = busy;
        v[STATUS_DONE]    = done_q;
        v[STATUS_ERROR]   = error_q;
        v[STATUS_OVERRUN] = overrun_q;
        return v;
      end
      REG_COUNT:  return count_q;
      REG_PARAMS: return {16'd0, 8'(BUF_LOG2), 8'(TAGS)};
      default:    return 32'd0;
    endcase
  endfunction

  assign merged_cur = (reg_value(wr_word) & ~mask) | (pay_data & mask);

  assign tx_valid = cpl_pending;
  assign tx_data  = cpl_beat < 11'd3 ? cpl_hdr[cpl_beat[1:0]] : reg_value(cpl_word);
  assign tx_last  = cpl_beat == cpl_beats - 11'd1;

  // The completion's header for the request in hdr0..3 (§2.2.9: TC and Attr from the request).
  logic [12:0] byte_count;  // 1..4096: the 12-bit field encodes 4096 as 0
  logic [1:0]  first_byte;
  logic        read_ok;
  assign byte_count = read_byte_count(hdr_len, hdr1[3:0], hdr1[7:4]);
  logic unused_bc;
  assign unused_bc = byte_count[12];
  assign first_byte = first_enabled(hdr1[3:0]);
  assign read_ok    = hdr_len <= 11'(MAX_READ_DW);

  always_ff @(posedge clk) begin
    start <= 1'b0;
    if (rst) begin
      irq_en      <= 1'b0;
      src         <= '0;
      dst         <= '0;
      len         <= '0;
      done_q      <= 1'b0;
      error_q     <= 1'b0;
      overrun_q   <= 1'b0;
      cause_q     <= CAUSE_NONE;
      status_q    <= CPL_SC;
      count_q     <= '0;
      wr_active   <= 1'b0;
      cpl_pending <= 1'b0;
    end else begin
      // A request's header.
      if (req_hdr_valid && req_hdr_ready) begin
        if (is_write) begin
          wr_active   <= 1'b1;
          wr_poisoned <= hdr0[14];
          wr_word     <= hdr_word;
          wr_left     <= hdr_len;
          wr_first_be <= hdr1[3:0];
          wr_last_be  <= hdr1[7:4];
          wr_first    <= 1'b1;
        end else begin
          cpl_pending <= 1'b1;
          cpl_beat    <= '0;
          cpl_beats   <= read_ok ? 11'd3 + hdr_len : 11'd3;
          cpl_word    <= hdr_word;
          cpl_hdr[0]  <= {read_ok ? FMT_3DW_DATA : FMT_3DW, TYPE_CPL, 1'b0, hdr0[22:20], 1'b0, hdr0[18], 4'b0,
                          hdr0[13:12], 2'b00, read_ok ? hdr0[9:0] : 10'd0};
          cpl_hdr[1]  <= {cfg_id, read_ok ? CPL_SC : CPL_CA, 1'b0, byte_count[11:0]};
          cpl_hdr[2]  <= {hdr1[31:8], 1'b0, hdr_word[4:0], first_byte};
        end
      end
      // A payload DW of a write: one register.
      if (wr_active && pay_valid) begin
        if (!wr_poisoned) begin
          case (wr_word)
            REG_CTRL:   irq_en <= merged_cur[0];
            REG_SRC_LO: src[31:0] <= merged_cur;
            REG_SRC_HI: src[63:32] <= merged_cur;
            REG_DST_LO: dst[31:0] <= merged_cur;
            REG_DST_HI: dst[63:32] <= merged_cur;
            REG_LEN:    len <= merged_cur[LEN_W-1:0];
            REG_DOORBELL:
              if (be[0] && pay_data[0]) begin
                if (busy || start) overrun_q <= 1'b1;
                else begin
                  start    <= 1'b1;
                  cause_q  <= CAUSE_NONE;
                  status_q <= CPL_SC;
                end
              end
            REG_STATUS: begin  // RW1C
              if (be[0] && pay_data[STATUS_DONE]) done_q <= 1'b0;
              if (be[0] && pay_data[STATUS_ERROR]) error_q <= 1'b0;
              if (be[0] && pay_data[STATUS_OVERRUN]) overrun_q <= 1'b0;
            end
            default: ;  // read-only or unassigned
          endcase
        end
        wr_word  <= wr_word + 10'd1;
        wr_first <= 1'b0;
        wr_left  <= wr_left - 11'd1;
        if (wr_left == 11'd1) wr_active <= 1'b0;
      end
      // The engine's ends set their bits over a same-cycle clear (hardware wins).
      if (done_set) begin
        done_q  <= 1'b1;
        count_q <= count_q + 32'd1;
      end
      if (err_set) begin
        error_q  <= 1'b1;
        cause_q  <= err_cause;
        status_q <= err_status;
      end
      // The completion's beats.
      if (cpl_pending && tx_ready) begin
        cpl_beat <= cpl_beat + 11'd1;
        if (cpl_beat >= 11'd3) cpl_word <= cpl_word + 10'd1;
        if (tx_last) cpl_pending <= 1'b0;
      end
    end
  end
endmodule
