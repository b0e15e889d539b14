// fp8_pkg: the element formats and operation codes of the fp8 unit, and each format's field
// layout as a table indexed by its 3-bit code, so one datapath serves every format at run time.
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

  // A format's layout, decoded once from its code where a stage needs it, so the stage reads
  // fields rather than decoding again at every use. In hardware, a six-entry table.
  typedef struct packed {
    logic [4:0]         man_bits;        // stored mantissa bits (precision is one more)
    logic [7:0]         bias;
    specials_e          specials;
    logic [31:0]        sign_bit;
    logic [31:0]        magnitude_mask;  // the code without its sign
    logic [31:0]        man_mask;
    logic [31:0]        exp_field_max;   // the all-ones exponent field, unshifted
    logic [31:0]        max_finite;      // the largest finite magnitude's code
    logic [31:0]        overflow;        // infinity, or the largest finite magnitude where there is none
    logic [31:0]        nan;             // the canonical quiet NaN, or +-max in E2M1, which has none
    logic signed [11:0] emin;            // smallest normal exponent, 1 - bias
    logic signed [11:0] emax;            // largest finite exponent (IEEE reserves the all-ones field)
  } fmt_info_t;

  // The table, from the formats' definitions (docs/formats.md): E4M3's largest finite value is
  // S.1111.110 (448) and S.1111.111 its only NaN; E2M1's every code is finite, its largest 6.
  // The canonical NaNs are IEEE's default quiet NaN (quiet bit set, no payload).
  function automatic fmt_info_t fmt_info(logic [2:0] f);
    //            man    bias    specials           sign          magnitude     mantissa      exp field  max finite    overflow      NaN           emin     emax
    case (f)
      FMT_FP32:     return '{5'd23, 8'd127, SPECIALS_IEEE,     32'h80000000, 32'h7FFFFFFF, 32'h007FFFFF, 32'hFF, 32'h7F7FFFFF, 32'h7F800000, 32'h7FC00000, -12'sd126, 12'sd127};
      FMT_FP16:     return '{5'd10, 8'd15,  SPECIALS_IEEE,     32'h8000,     32'h7FFF,     32'h03FF,     32'h1F, 32'h7BFF,     32'h7C00,     32'h7E00,     -12'sd14,  12'sd15};
      FMT_BF16:     return '{5'd7,  8'd127, SPECIALS_IEEE,     32'h8000,     32'h7FFF,     32'h007F,     32'hFF, 32'h7F7F,     32'h7F80,     32'h7FC0,     -12'sd126, 12'sd127};
      FMT_FP8_E4M3: return '{5'd3,  8'd7,   SPECIALS_NAN_ONLY, 32'h80,       32'h7F,       32'h07,       32'h0F, 32'h7E,       32'h7E,       32'h7F,       -12'sd6,   12'sd8};
      FMT_FP8_E5M2: return '{5'd2,  8'd15,  SPECIALS_IEEE,     32'h80,       32'h7F,       32'h03,       32'h1F, 32'h7B,       32'h7C,       32'h7E,       -12'sd14,  12'sd15};
      default:      return '{5'd1,  8'd1,   SPECIALS_NONE,     32'h8,        32'h7,        32'h1,        32'h03, 32'h7,        32'h7,        32'h7,        12'sd0,    12'sd2};  // fp4_e2m1
    endcase
  endfunction

  // A magnitude's code with a sign: overflow, NaN and zero results are built with it.
  function automatic logic [31:0] with_sign(logic [31:0] sign_bit, logic [31:0] magnitude, logic neg);
    return magnitude | (neg ? sign_bit : 32'd0);
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
