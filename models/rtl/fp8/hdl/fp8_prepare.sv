// fp8_prepare: stage 1 of a lane (combinational). Unpacks the operands, settles every case
// whose result does not need arithmetic, and lines up the rest for the adder or multiplier.
//
// The rules are those of docs/formats.md ("Arithmetic rules", "Conversion rules"):
//   - a NaN operand gives the canonical NaN with its sign (a's if both are NaN; for sub, b's
//     sign as b carries it); fp4_e2m1 has no NaN and saturates to +-6 instead;
//   - inf + -inf and 0 * inf give +NaN; any other infinite operand gives the overflow code
//     (infinity, or +-max where the format has none) with the result's sign;
//   - -0 + -0 = -0; two zeros otherwise add to +0; a product of a zero is a zero signed by XOR;
//   - min and max return an operand's own code, ordering -0 below +0;
//   - a conversion of a NaN, infinity or zero is settled here, anything else adds zero and is
//     rounded to the destination.
module fp8_prepare
  import fp8_pkg::*;
(
  input  logic [2:0]  op,
  input  logic [2:0]  fmt,      // the operands' format
  input  logic [2:0]  dst_fmt,  // the result's format (cvt only; apply's result is in fmt)
  input  logic [31:0] a,
  input  logic [31:0] b,
  output prep_t       out
);
  logic               a_sign, a_zero, a_inf, a_nan;
  logic               b_sign, b_zero, b_inf, b_nan;
  logic [30:0]        a_mag, b_mag;
  logic [23:0]        a_sig, b_sig;
  logic signed [11:0] a_exp, b_exp;

  fp8_unpack unpack_a (.fmt(fmt), .code(a), .sign(a_sign), .is_zero(a_zero), .is_inf(a_inf),
                       .is_nan(a_nan), .mag(a_mag), .sig(a_sig), .exp(a_exp));
  fp8_unpack unpack_b (.fmt(fmt), .code(b), .sign(b_sign), .is_zero(b_zero), .is_inf(b_inf),
                       .is_nan(b_nan), .mag(b_mag), .sig(b_sig), .exp(b_exp));

  logic               y_sign;     // b's sign as the addition sees it (flipped for sub)
  logic               b_larger;   // |b| > |a|
  logic               swap;       // the addition takes b as x (never for a conversion)
  logic               a_le_b;     // a <= b in the order with -0 below +0
  logic               a_ge_b;
  logic signed [11:0] exp_diff;
  logic [2:0]         res_fmt;
  logic [31:0]        width_mask;
  /* verilator lint_off UNUSEDSIGNAL */
  fmt_info_t          f, r;  // the operands' and the result's layouts; only some fields matter here
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    res_fmt    = (op == OP_CVT) ? dst_fmt : fmt;
    f          = fmt_info(fmt);
    r          = fmt_info(res_fmt);
    width_mask = f.sign_bit | f.magnitude_mask;
    y_sign     = b_sign ^ (op == OP_SUB);
    b_larger   = b_mag > a_mag;
    swap       = (op != OP_CVT) && b_larger;
    if (a_sign != b_sign) begin
      a_le_b = a_sign;
      a_ge_b = b_sign;
    end else begin
      a_le_b = a_sign ? a_mag >= b_mag : a_mag <= b_mag;
      a_ge_b = a_sign ? a_mag <= b_mag : a_mag >= b_mag;
    end

    out              = '0;
    out.dst          = res_fmt;
    out.is_mul       = op == OP_MUL;
    out.special      = 1'b1;
    out.special_code = 32'd0;
    // Addition (and a conversion, which adds zero): x is the larger magnitude.
    exp_diff    = swap ? b_exp - a_exp : a_exp - b_exp;
    out.sign    = swap ? y_sign : a_sign;
    out.sig_x   = swap ? b_sig : a_sig;
    out.sig_y   = (op == OP_CVT) ? 24'd0 : (swap ? a_sig : b_sig);
    out.exp     = swap ? b_exp : a_exp;
    out.align   = (exp_diff > 12'sd31) ? 5'd31 : exp_diff[4:0];
    out.eff_sub = (op != OP_CVT) && (a_sign != y_sign);

    if (beat_bad(op, fmt, dst_fmt)) begin
      out.special_code = 32'd0;
    end else if (op == OP_CVT) begin
      if (a_nan)       out.special_code = with_sign(r.sign_bit, r.nan, a_sign);
      else if (a_inf)  out.special_code = with_sign(r.sign_bit, r.overflow, a_sign);
      else if (a_zero) out.special_code = with_sign(r.sign_bit, 32'd0, a_sign);
      else             out.special = 1'b0;
    end else if (a_nan) begin
      out.special_code = with_sign(f.sign_bit, f.nan, a_sign);
    end else if (b_nan) begin
      out.special_code = with_sign(f.sign_bit, f.nan, b_sign);
    end else begin
      case (op)
        OP_ADD, OP_SUB: begin
          if (a_inf && b_inf && a_sign != y_sign) out.special_code = with_sign(f.sign_bit, f.nan, 1'b0);
          else if (a_inf)                         out.special_code = with_sign(f.sign_bit, f.overflow, a_sign);
          else if (b_inf)                         out.special_code = with_sign(f.sign_bit, f.overflow, y_sign);
          else if (a_zero && b_zero)              out.special_code = with_sign(f.sign_bit, 32'd0, a_sign & y_sign);
          else                                    out.special = 1'b0;
        end
        OP_MUL: begin
          out.sign  = a_sign ^ b_sign;
          out.sig_x = a_sig;
          out.sig_y = b_sig;
          out.exp   = a_exp + b_exp;
          if ((a_inf && b_zero) || (a_zero && b_inf)) out.special_code = with_sign(f.sign_bit, f.nan, 1'b0);
          else if (a_inf || b_inf)                    out.special_code = with_sign(f.sign_bit, f.overflow, out.sign);
          else if (a_zero || b_zero)                  out.special_code = with_sign(f.sign_bit, 32'd0, out.sign);
          else                                        out.special = 1'b0;
        end
        OP_MIN:  out.special_code = (a_le_b ? a : b) & width_mask;
        default: out.special_code = (a_ge_b ? a : b) & width_mask;  // OP_MAX
      endcase
    end
  end
endmodule
