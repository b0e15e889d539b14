// fp8_lane: one element's datapath behind the unit's input register, four pipeline stages with
// a register after each:
// prepare (unpack, special cases, operand swap), compute (aligned add or multiply), normalize
// (leading-zero count and shift), round_pack (round to nearest even, pack, overflow). The
// registers load when `advance` is high; the unit's control decides when (fp8_unit).
module fp8_lane
  import fp8_pkg::*;
(
  input  logic        clk,
  input  logic        advance,
  input  logic [2:0]  op,
  input  logic [2:0]  fmt,
  input  logic [2:0]  dst_fmt,
  input  logic [31:0] a,
  input  logic [31:0] b,
  output logic [31:0] result
);
  prep_t  prep_d, prep_q;
  exact_t exact_d, exact_q;
  norm_t  norm_d, norm_q;
  logic [31:0] code_d;

  fp8_prepare    stage1 (.op(op), .fmt(fmt), .dst_fmt(dst_fmt), .a(a), .b(b), .out(prep_d));
  fp8_compute    stage2 (.in(prep_q), .out(exact_d));
  fp8_normalize  stage3 (.in(exact_q), .out(norm_d));
  fp8_round_pack stage4 (.in(norm_q), .code(code_d));

  // Data registers need no reset: the unit's valid bits say which hold a beat.
  always_ff @(posedge clk) begin
    if (advance) begin
      prep_q  <= prep_d;
      exact_q <= exact_d;
      norm_q  <= norm_d;
      result  <= code_d;
    end
  end
endmodule
