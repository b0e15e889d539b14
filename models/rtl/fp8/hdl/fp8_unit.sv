// fp8_unit: the ionic target's fp8 arithmetic unit (the P4 extern fp8_unit's apply and cvt)
// as a pipelined stream processor: LANES elements a beat, one beat a clock, LATENCY clocks from
// input to output: an input register (a beat goes straight into flops, so the unit's timing
// does not depend on the source's logic), then each lane's four stages (fp8_lane).
//
// Streams (AXI4-Stream handshake: a beat moves on a rising edge where valid and ready are both
// high; valid, once high, holds with its beat until it moves):
//   s_*  operands: op (0 add, 1 sub, 2 mul, 3 min, 4 max, 5 cvt), fmt (the operands' format,
//        0 fp32 .. 5 fp4_e2m1), dst_fmt (cvt's result format; ignored otherwise), lane i's
//        elements a and b in bits [32i+31:32i] of s_a and s_b, LSB-aligned in their format's
//        width (b is ignored by cvt), and last (passed through, marks a block's final beat);
//   m_*  results: lane i's code in bits [32i+31:32i] of m_data, LSB-aligned, zero above its
//        format's width; last as it came in; bad when the beat's op or a format code was out of
//        range (its results are 0).
// Each beat carries its own op and formats, so consecutive beats may differ.
//
// Flow control is a pipeline that moves as a whole: it advances unless the output holds a beat
// the sink is not taking, so s_ready = !(m_valid && !m_ready), combinationally from m_ready;
// neither s_ready nor m_valid looks at s_valid. The one rule for the surroundings: m_ready must
// not depend combinationally on s_ready, which would close a loop through the unit.
//
// Reset (rst, synchronous, active high) empties the pipeline; data registers are not reset.
module fp8_unit
  import fp8_pkg::*;
#(
  parameter int unsigned LANES = 4
) (
  input  logic                    clk,
  input  logic                    rst,
  input  logic                    s_valid,
  output logic                    s_ready,
  input  logic [2:0]              s_op,
  input  logic [2:0]              s_fmt,
  input  logic [2:0]              s_dst_fmt,
  input  logic [LANES*ELEM_W-1:0] s_a,
  input  logic [LANES*ELEM_W-1:0] s_b,
  input  logic                    s_last,
  output logic                    m_valid,
  input  logic                    m_ready,
  output logic [LANES*ELEM_W-1:0] m_data,
  output logic                    m_last,
  output logic                    m_bad
);
  localparam int unsigned LATENCY = 5;

  logic               advance;
  logic [LATENCY-1:0] valid_q, last_q, bad_q;
  // The input register: the beat's sideband, shared by the lanes, and its operands.
  logic [2:0]              op_q, fmt_q, dst_fmt_q;
  logic [LANES*ELEM_W-1:0] a_q, b_q;

  assign advance = !(valid_q[LATENCY-1] && !m_ready);
  assign s_ready = advance;
  assign m_valid = valid_q[LATENCY-1];
  assign m_last  = last_q[LATENCY-1];
  assign m_bad   = bad_q[LATENCY-1];

  always_ff @(posedge clk) begin
    if (rst) begin
      valid_q <= '0;
      last_q  <= '0;
      bad_q   <= '0;
    end else if (advance) begin
      valid_q <= {valid_q[LATENCY-2:0], s_valid};
      last_q  <= {last_q[LATENCY-2:0], s_valid && s_last};
      bad_q   <= {bad_q[LATENCY-2:0], s_valid && beat_bad(s_op, s_fmt, s_dst_fmt)};
    end
  end

  // Data registers need no reset: the valid bits say which hold a beat.
  always_ff @(posedge clk) begin
    if (advance) begin
      op_q      <= s_op;
      fmt_q     <= s_fmt;
      dst_fmt_q <= s_dst_fmt;
      a_q       <= s_a;
      b_q       <= s_b;
    end
  end

  for (genvar i = 0; i < LANES; i++) begin : g_lane
    fp8_lane lane (
      .clk(clk), .advance(advance), .op(op_q), .fmt(fmt_q), .dst_fmt(dst_fmt_q),
      .a(a_q[i*ELEM_W +: ELEM_W]), .b(b_q[i*ELEM_W +: ELEM_W]),
      .result(m_data[i*ELEM_W +: ELEM_W])
    );
  end
endmodule
