// fp8_pkg: the element formats and operation codes of the fp8 unit, and each format's field
// layout as functions of its 3-bit code, so one datapath serves every format at run time.
//
// Format codes are the P4 fp8 extern's (docs/formats.md): 0 fp32 (IEEE 754 binary32),
// 1 fp16 (binary16), 2 bf16, 3 fp8_e4m3 (OCP OFP8 E4M3: no infinity, S.1111.111 is the only
// NaN), 4 fp8_e5m2 (OCP OFP8 E5M2, IEEE-style specials), 5 fp4_e2m1 (OCP MX E2M1: no infinity,
// no NaN). Operation codes 0..4 are the extern's apply(op, fmt); 5 is cvt(src_fmt, dst_fmt).
package fp8_pkg;

  localparam int unsigned ELEM_W = 32;  // one lane carries one element of any format, LSB-aligned

  typedef enum logic [2:0] {
    FMT_FP32     = 3'd0,
    FMT_FP16     = 3'd1,
    FMT_BF16     = 3'd2,
    FMT_FP8_E4M3 = 3'd3,
    FMT_FP8_E5M2 = 3'd4,
    FMT_FP4_E2M1 = 3'd5
  } fmt_e;

  typedef enum logic [2:0] {
    OP_ADD = 3'd0,
    OP_SUB = 3'd1,
    OP_MUL = 3'd2,
    OP_MIN = 3'd3,
    OP_MAX = 3'd4,
    OP_CVT = 3'd5
  } op_e;

  // What the all-ones exponent field means.
  typedef enum logic [1:0] {
    SPECIALS_IEEE     = 2'd0,  // all-ones exponent: infinity (mantissa 0) or NaN
    SPECIALS_NAN_ONLY = 2'd1,  // E4M3: only S.1111.111 is NaN, the rest is finite
    SPECIALS_NONE     = 2'd2   // E2M1: every code is a finite number
  } specials_e;

  function automatic logic fmt_valid(logic [2:0] f);
    return f <= 3'd5;
  endfunction

  function automatic logic op_valid(logic [2:0] o);
    return o <= 3'd5;
  endfunction

  // A beat whose op or formats are out of range: its results are 0 and it is flagged.
  function automatic logic beat_bad(logic [2:0] o, logic [2:0] f, logic [2:0] d);
    return !op_valid(o) || !fmt_valid(f) || (o == OP_CVT && !fmt_valid(d));
  endfunction

  // Element width in bits.
  function automatic logic [5:0] fmt_bits(logic [2:0] f);
    case (f)
      FMT_FP32: return 6'd32;
      FMT_FP16, FMT_BF16: return 6'd16;
      FMT_FP8_E4M3, FMT_FP8_E5M2: return 6'd8;
      default: return 6'd4;
    endcase
  endfunction

  // Exponent field width.
  function automatic logic [3:0] fmt_exp_bits(logic [2:0] f);
    case (f)
      FMT_FP32, FMT_BF16: return 4'd8;
      FMT_FP16, FMT_FP8_E5M2: return 4'd5;
      FMT_FP8_E4M3: return 4'd4;
      default: return 4'd2;
    endcase
  endfunction

  // Stored mantissa bits (precision is one more).
  function automatic logic [4:0] fmt_man_bits(logic [2:0] f);
    case (f)
      FMT_FP32: return 5'd23;
      FMT_FP16: return 5'd10;
      FMT_BF16: return 5'd7;
      FMT_FP8_E4M3: return 5'd3;
      FMT_FP8_E5M2: return 5'd2;
      default: return 5'd1;
    endcase
  endfunction

  function automatic logic [7:0] fmt_bias(logic [2:0] f);
    case (f)
      FMT_FP32, FMT_BF16: return 8'd127;
      FMT_FP16, FMT_FP8_E5M2: return 8'd15;
      FMT_FP8_E4M3: return 8'd7;
      default: return 8'd1;
    endcase
  endfunction

  function automatic specials_e fmt_specials(logic [2:0] f);
    case (f)
      FMT_FP8_E4M3: return SPECIALS_NAN_ONLY;
      FMT_FP4_E2M1: return SPECIALS_NONE;
      default: return SPECIALS_IEEE;
    endcase
  endfunction

  function automatic logic [31:0] sign_bit(logic [2:0] f);
    return 32'd1 << (fmt_bits(f) - 6'd1);
  endfunction

  function automatic logic [31:0] magnitude_mask(logic [2:0] f);
    return sign_bit(f) - 32'd1;
  endfunction

  function automatic logic [31:0] man_mask(logic [2:0] f);
    return (32'd1 << fmt_man_bits(f)) - 32'd1;
  endfunction

  function automatic logic [31:0] exp_field_max(logic [2:0] f);
    return (32'd1 << fmt_exp_bits(f)) - 32'd1;
  endfunction

  // Smallest normal exponent (unbiased), 1 - bias.
  function automatic logic signed [11:0] fmt_emin(logic [2:0] f);
    return 12'sd1 - $signed({4'd0, fmt_bias(f)});
  endfunction

  // Largest exponent of a finite value: IEEE formats reserve the all-ones field.
  function automatic logic signed [11:0] fmt_emax(logic [2:0] f);
    logic [11:0] top;
    top = 12'(exp_field_max(f)) - ((fmt_specials(f) == SPECIALS_IEEE) ? 12'd1 : 12'd0);
    return $signed(top) - $signed({4'd0, fmt_bias(f)});
  endfunction

  function automatic logic [31:0] inf_code(logic [2:0] f);
    return exp_field_max(f) << fmt_man_bits(f);
  endfunction

  function automatic logic [31:0] max_finite_code(logic [2:0] f);
    case (fmt_specials(f))
      SPECIALS_IEEE: return inf_code(f) - 32'd1;
      SPECIALS_NAN_ONLY: return magnitude_mask(f) - 32'd1;
      default: return magnitude_mask(f);
    endcase
  endfunction

  // Positive canonical quiet NaN: IEEE's quiet bit with no payload; E4M3's only NaN.
  function automatic logic [31:0] quiet_nan_code(logic [2:0] f);
    if (fmt_specials(f) == SPECIALS_IEEE) return inf_code(f) | (32'd1 << (fmt_man_bits(f) - 5'd1));
    return magnitude_mask(f);
  endfunction

  // Overflow: infinity where the format has one, else the largest finite magnitude; sign kept.
  function automatic logic [31:0] overflow_code(logic [2:0] f, logic neg);
    logic [31:0] mag;
    mag = (fmt_specials(f) == SPECIALS_IEEE) ? inf_code(f) : max_finite_code(f);
    return mag | (neg ? sign_bit(f) : 32'd0);
  endfunction

  // A NaN result: the canonical quiet NaN, or +-max in E2M1, which has no NaN.
  function automatic logic [31:0] nan_code(logic [2:0] f, logic neg);
    logic [31:0] mag;
    mag = (fmt_specials(f) == SPECIALS_NONE) ? max_finite_code(f) : quiet_nan_code(f);
    return mag | (neg ? sign_bit(f) : 32'd0);
  endfunction

  function automatic logic [31:0] zero_code(logic [2:0] f, logic neg);
    return neg ? sign_bit(f) : 32'd0;
  endfunction

  // Width of the frame the adder lines its operands up in: a carry bit, the 24-bit
  // significands, three guard bits and a sticky bit (see fp8_align_add).
  localparam int unsigned ADD_W = 29;
  // The exact values the rounding stage takes: a product of two 24-bit significands.
  localparam int unsigned EXACT_W = 48;

  // Stage 1 to 2: what to compute, or the result already known (NaN, infinity, zero, min/max).
  typedef struct packed {
    logic               special;       // special_code is the result
    logic [31:0]        special_code;
    logic [2:0]         dst;           // format of the result
    logic               is_mul;        // else an addition (a conversion adds zero)
    logic               eff_sub;       // addition of operands of opposite signs
    logic               sign;          // sign of the result (of x for an addition)
    logic [23:0]        sig_x;         // addition: the larger magnitude
    logic [23:0]        sig_y;
    logic signed [11:0] exp;           // addition: exponent of x's LSB; product: sum of both
    logic [4:0]         align;         // addition: places y lies below x, at most 31
  } prep_t;

  // Stage 2 to 3: (-1)^sign * m * 2^e, exact or (for a far-apart sum) rounded to odd below
  // three guard bits, which rounds on to every format as the exact value would.
  typedef struct packed {
    logic                 special;
    logic [31:0]          special_code;
    logic [2:0]           dst;
    logic                 sign;
    logic [EXACT_W-1:0]   m;
    logic signed [11:0]   e;
  } exact_t;

  // Stage 3 to 4: the same value normalised, m's leading one at bit EXACT_W-1 (m 0: zero).
  typedef struct packed {
    logic                 special;
    logic [31:0]          special_code;
    logic [2:0]           dst;
    logic                 sign;
    logic                 zero;
    logic [EXACT_W-1:0]   m;
    logic signed [11:0]   msb_exp;     // exponent of m's leading one
  } norm_t;

endpackage
