// fp8_unpack: one element code of format `fmt` taken apart (combinational).
//
// Every value of every format is a binary32 value, so the unpacked form is binary32's: a
// 24-bit significand with the implicit bit at bit 23 (subnormals have it clear) and the
// exponent of its least significant bit, value = (-1)^sign * sig * 2^exp. Narrow formats'
// mantissas are placed at the top of the 23 fraction bits, so a format's own quantum is a
// power of two above bit 0. The magnitude (code without the sign) orders the non-NaN values
// of one format as their codes do.
module fp8_unpack
  import fp8_pkg::*;
(
  input  logic [2:0]         fmt,
  input  logic [31:0]        code,     // LSB-aligned; bits above the format's width are ignored
  output logic               sign,
  output logic               is_zero,
  output logic               is_inf,
  output logic               is_nan,
  output logic [30:0]        mag,
  output logic [23:0]        sig,
  output logic signed [11:0] exp
);
  logic [31:0] field, man;
  logic [31:0] magnitude;
  logic        top_field;
  /* verilator lint_off UNUSEDSIGNAL */
  fmt_info_t   f;  // the layout; unpacking reads only some of it
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    f         = fmt_info(fmt);
    magnitude = code & f.magnitude_mask;
    mag       = magnitude[30:0];
    sign      = |(code & f.sign_bit);
    field     = (magnitude >> f.man_bits) & f.exp_field_max;
    man       = magnitude & f.man_mask;
    top_field = field == f.exp_field_max;
    is_zero   = magnitude == 32'd0;
    is_inf    = f.specials == SPECIALS_IEEE && top_field && man == 32'd0;
    case (f.specials)
      SPECIALS_IEEE:     is_nan = top_field && man != 32'd0;
      SPECIALS_NAN_ONLY: is_nan = magnitude == f.magnitude_mask;
      default:           is_nan = 1'b0;
    endcase
    // Implicit bit for normals; a subnormal (field 0) shares field 1's exponent.
    sig = {field != 32'd0, man[22:0] << (5'd23 - f.man_bits)};
    exp = $signed((field == 32'd0) ? 12'd1 : field[11:0]) - $signed({4'd0, f.bias}) - 12'sd23;
  end
endmodule
