// fp8_compute: stage 2 of a lane (combinational). The exact sum or product of the prepared
// significands, handed on as (-1)^sign * m * 2^e.
//
// A product of two 24-bit significands has at most 48 bits: exact. A sum lines y up under x
// in an ADD_W-bit frame: a carry bit, x's 24 bits, three guard bits and a sticky bit. Up to four
// places of alignment lose nothing. Beyond that, the bits of y that fall off the frame are ORed
// into the sticky bit (rounding y to odd at the frame's last place), and x + y, or x - y, is
// then the exact value rounded to odd there: the final rounding to nearest even, at least two
// places higher for every format (y lies five or more places down, so a difference loses at
// most one leading bit), gives what the exact value would. An exact zero sum is +0.
module fp8_compute
  import fp8_pkg::*;
(
  input  prep_t  in,
  output exact_t out
);
  logic [ADD_W-1:0] x_frame, y_frame, y_aligned, y_lost, sum;

  always_comb begin
    x_frame   = {1'b0, in.sig_x, 4'b0};
    y_frame   = {1'b0, in.sig_y, 4'b0};
    y_lost    = y_frame & ((ADD_W'(1) << in.align) - ADD_W'(1));
    y_aligned = (y_frame >> in.align) | {{(ADD_W - 1){1'b0}}, |y_lost};
    // |x| >= |y|, so a difference is never negative.
    sum       = in.eff_sub ? x_frame - y_aligned : x_frame + y_aligned;

    out.special      = in.special;
    out.special_code = in.special_code;
    out.dst          = in.dst;
    if (in.is_mul) begin
      out.sign = in.sign;
      out.m    = in.sig_x * in.sig_y;
      out.e    = in.exp;
    end else begin
      out.sign = in.sign && sum != '0;
      out.m    = {{(EXACT_W - ADD_W){1'b0}}, sum};
      out.e    = in.exp - 12'sd4;
    end
  end
endmodule
