// fp8_round_pack: stage 4 of a lane (combinational). Rounds the normalised value to nearest,
// ties to even, in its destination format and packs the code; or passes a settled result on.
//
// With the leading one at bit EXACT_W-1 and exponent E, the destination's quantum is
// 2^(max(E, emin) - man_bits) (subnormals share emin's), so the significand keeps its top
// man_bits + 1 bits, fewer below emin, and the rest decide the rounding: the first of them is
// the guard bit, the others the sticky bits; a tie goes to the even neighbour. The kept bits
// of a normal result include the implicit one, so adding the biased exponent less one makes the
// code, and a significand that rounds up to the next power of two carries into the exponent
// field, which is the next binade. A code past the largest finite one (infinity, E4M3's NaN
// pattern, or beyond E2M1's codes) is IEEE 754 overflow: infinity or +-max.
module fp8_round_pack
  import fp8_pkg::*;
(
  input  norm_t       in,
  output logic [31:0] code
);
  logic signed [11:0] emin, emax, below;
  logic [11:0]        shift_wide;
  logic [5:0]         shift;      // significand bits rounded away, at most EXACT_W + 1
  logic [EXACT_W-1:0] rest_mask, half;
  logic [25:0]        kept, rounded;
  logic               guard, sticky, overflow;
  logic [31:0]        packed_code;
  /* verilator lint_off UNUSEDSIGNAL */
  fmt_info_t          d;  // the destination's layout; rounding reads only some of it
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    d     = fmt_info(in.dst);
    emin  = d.emin;
    emax  = d.emax;
    below = (in.msb_exp < emin) ? emin - in.msb_exp : 12'sd0;
    shift_wide = 12'(EXACT_W - 1) - {7'd0, d.man_bits} + $unsigned(below);
    shift = (shift_wide > 12'(EXACT_W + 1)) ? 6'(EXACT_W + 1) : shift_wide[5:0];
    // shift >= EXACT_W - 24 > 0: there is always a guard bit's place.
    half      = EXACT_W'(1) << (shift - 6'd1);
    rest_mask = (EXACT_W'(1) << shift) - EXACT_W'(1);
    guard     = |(in.m & half);
    sticky    = |(in.m & rest_mask & ~half);
    kept      = 26'(in.m >> shift);
    rounded   = kept + {25'd0, guard & (sticky | kept[0])};
    if (in.msb_exp < emin)
      packed_code = {6'd0, rounded};  // subnormal; 2^man_bits is the smallest normal's code
    else
      packed_code = ((32'($unsigned(in.msb_exp + $signed({4'd0, d.bias}))) - 32'd1)
                     << d.man_bits) + {6'd0, rounded};
    overflow = in.msb_exp > emax + 12'sd1 || packed_code > d.max_finite;

    if (in.special)      code = in.special_code;
    else if (in.zero)    code = with_sign(d.sign_bit, 32'd0, in.sign);
    else if (overflow)   code = with_sign(d.sign_bit, d.overflow, in.sign);
    else                 code = packed_code | with_sign(d.sign_bit, 32'd0, in.sign);
  end
endmodule
