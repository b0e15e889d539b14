// rtl_dma_rx: the receive side of the TLP stream. It collects a TLP's header DWs (3 or 4, as Fmt
// says), hands the header to its consumer (memory requests to the register file, completions to
// the read engine) and passes the payload DWs after it, one a beat. Framing is by `last`: a TLP
// ends at the beat that carries it. TLPs of other types, which the hard IP core does not send,
// are dropped whole.
//
// Back-pressure: s_ready is low only while a complete header waits for its consumer (the
// register file's completion slot is busy); header and payload beats are otherwise taken at
// once. s_ready depends on registers only.
module rtl_dma_rx
  import rtl_dma_pkg::*;
(
  input  logic        clk,
  input  logic        rst,
  // The stream from the hard IP core.
  input  logic        s_valid,
  output logic        s_ready,
  input  logic [31:0] s_data,
  input  logic        s_last,
  // The header of the TLP being received (valid from the *_hdr_valid beat until its last beat).
  output logic [31:0] hdr0,
  output logic [31:0] hdr1,
  output logic [31:0] hdr2,
  output logic [31:0] hdr3,
  // A memory request (MRd, MWr) for the register file; its payload follows on pay_*.
  output logic        req_hdr_valid,
  input  logic        req_hdr_ready,
  // A completion for the read engine; its payload follows on pay_*.
  output logic        cpl_hdr_valid,
  // A payload DW of the current TLP (taken by its consumer at once).
  output logic        pay_valid,
  output logic [31:0] pay_data,
  output logic        pay_req  // the payload belongs to a request (else to a completion)
);
  typedef enum logic [1:0] {S_HDR, S_DISPATCH, S_DATA, S_DROP} state_e;
  state_e     state;
  logic [1:0] hdr_index;
  logic       ended;      // the TLP's last beat has been taken (a TLP without payload)
  logic       is_req_q;

  logic [4:0] typ;
  logic       four_dw, is_req, is_cpl, beat, hdr_last_beat;
  assign typ           = hdr0[28:24];
  assign four_dw       = hdr0[29];
  assign is_req        = typ == TYPE_MEM;
  assign is_cpl        = typ == TYPE_CPL && !four_dw;
  assign beat          = s_valid && s_ready;
  assign hdr_last_beat = hdr_index == (four_dw ? 2'd3 : 2'd2);  // (never at DW0)

  assign s_ready       = state != S_DISPATCH;
  assign req_hdr_valid = state == S_DISPATCH && is_req_q;
  assign cpl_hdr_valid = state == S_DISPATCH && !is_req_q;
  assign pay_valid     = state == S_DATA && s_valid;
  assign pay_data      = s_data;
  assign pay_req       = is_req_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      state     <= S_HDR;
      hdr_index <= 2'd0;
      ended     <= 1'b0;
      is_req_q  <= 1'b0;
    end else begin
      case (state)
        S_HDR: if (beat) begin
          case (hdr_index)
            2'd0: hdr0 <= s_data;
            2'd1: hdr1 <= s_data;
            2'd2: hdr2 <= s_data;
            default: hdr3 <= s_data;
          endcase
          hdr_index <= hdr_index + 2'd1;
          if (hdr_last_beat) begin
            hdr_index <= 2'd0;
            ended     <= s_last;
            if (is_req || is_cpl) begin
              state    <= S_DISPATCH;
              is_req_q <= is_req;
            end else begin
              state <= s_last ? S_HDR : S_DROP;
            end
          end else if (s_last) begin
            hdr_index <= 2'd0;  // a truncated header: drop it
          end
        end
        S_DISPATCH: if (!is_req_q || req_hdr_ready) state <= ended ? S_HDR : S_DATA;
        S_DATA, S_DROP: if (beat && s_last) state <= S_HDR;
        default: state <= S_HDR;
      endcase
    end
  end
endmodule
