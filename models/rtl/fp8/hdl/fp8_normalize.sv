// fp8_normalize: stage 3 of a lane (combinational). Shifts the exact value's leading one to
// the top of the word and computes its exponent: a leading-zero count and a left shift.
module fp8_normalize
  import fp8_pkg::*;
(
  input  exact_t in,
  output norm_t  out
);
  logic [5:0] lz;

  // Leading zeros of a nonzero word (a priority encoder, most significant bit first).
  function automatic logic [5:0] leading_zeros(logic [EXACT_W-1:0] m);
    logic [5:0] n;
    logic       found;
    n     = 6'(EXACT_W);
    found = 1'b0;
    for (int i = EXACT_W - 1; i >= 0; i--) begin
      if (!found && m[i]) begin
        n     = 6'(EXACT_W - 1 - i);
        found = 1'b1;
      end
    end
    return n;
  endfunction

  always_comb begin
    lz               = leading_zeros(in.m);
    out.special      = in.special;
    out.special_code = in.special_code;
    out.dst          = in.dst;
    out.sign         = in.sign;
    out.zero         = in.m == '0;
    out.m            = in.m << lz;
    out.msb_exp      = in.e + $signed(12'(EXACT_W - 1)) - $signed({6'd0, lz});
  end
endmodule
