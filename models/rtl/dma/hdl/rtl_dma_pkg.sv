// rtl_dma_pkg: the TLP fields the DMA endpoint builds and parses (PCIe Base Specification r5.0
// §2.2: the header's Fmt/Type, the memory request and completion headers, byte enables and byte
// counts), and the block's register map.
//
// TLP header DWs are 32-bit words with the specification's bit numbering (DW0 bit 31 is the
// first bit on the wire: Fmt in [31:29], Type in [28:24], Length in [9:0]).
package rtl_dma_pkg;

  // Fmt (§2.2.1): header size and whether data follows.
  localparam logic [2:0] FMT_3DW = 3'b000, FMT_4DW = 3'b001, FMT_3DW_DATA = 3'b010, FMT_4DW_DATA = 3'b011;
  // Type (§2.2.1): memory requests (MRd, MWr by Fmt) and completions (Cpl, CplD by Fmt).
  localparam logic [4:0] TYPE_MEM = 5'b00000, TYPE_CPL = 5'b01010;
  // Completion Status (§2.2.9).
  localparam logic [2:0] CPL_SC = 3'b000, CPL_CA = 3'b100;

  // Registers (BAR0, 32 bits each; offsets in bytes). docs/cosim.md has the map.
  localparam logic [9:0] REG_ID       = 10'h000,  // RO: ID_VALUE
                         REG_CTRL     = 10'h001,  // RW: [0] IRQ_EN
                         REG_SRC_LO   = 10'h002,  // RW: source host address
                         REG_SRC_HI   = 10'h003,
                         REG_DST_LO   = 10'h004,  // RW: destination host address
                         REG_DST_HI   = 10'h005,
                         REG_LEN      = 10'h006,  // RW: [23:0] bytes
                         REG_DOORBELL = 10'h007,  // WO: [0] START; reads 0
                         REG_STATUS   = 10'h008,  // see STATUS_*
                         REG_COUNT    = 10'h009,  // RO: copies completed without error
                         REG_PARAMS   = 10'h00a;  // RO: [7:0] tags, [15:8] log2 buffer bytes
  localparam logic [31:0] ID_VALUE = 32'h444d_4131;  // "DMA1"

  localparam int unsigned STATUS_BUSY = 0;     // RO: a copy is running
  localparam int unsigned STATUS_DONE = 1;     // RW1C: a copy completed
  localparam int unsigned STATUS_ERROR = 2;    // RW1C: a copy ended in error
  localparam int unsigned STATUS_OVERRUN = 3;  // RW1C: a doorbell rang while busy and was dropped
  // [6:4] RO: the last copy's error cause; [10:8] RO: the failing completion's status.
  localparam logic [2:0] CAUSE_NONE = 3'd0,
                         CAUSE_LENGTH = 3'd1,         // DMA_LEN is 0
                         CAUSE_BUS_MASTER = 3'd2,     // Bus Master Enable clear
                         CAUSE_CPL_STATUS = 3'd3,     // a read completed with UR or CA
                         CAUSE_CPL_MALFORMED = 3'd4;  // a completion's byte count or address was wrong

  localparam int unsigned LEN_W = 24;  // DMA_LEN's width: copies of up to 16 MiB - 1

  // Byte enables of a request for bytes [addr, addr + n), n >= 1, addr's low bits `lead`
  // (§2.2.5): a one-DW request has only First DW BE.
  function automatic logic [7:0] byte_enables(logic [1:0] lead, logic [1:0] last_lane, logic one_dw);
    logic [3:0] first, last;
    first = 4'hf << lead;
    last  = 4'hf >> (2'd3 - last_lane);
    return one_dw ? {4'h0, first & last} : {last, first};
  endfunction

  // The lowest enabled byte of a DW's byte enables (0 when none is).
  function automatic logic [1:0] first_enabled(logic [3:0] be);
    if (be[0]) return 2'd0;
    if (be[1]) return 2'd1;
    if (be[2]) return 2'd2;
    if (be[3]) return 2'd3;
    return 2'd0;
  endfunction

  // The highest enabled byte of a DW's byte enables (0 when none is: be[0] decides nothing).
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [1:0] last_enabled(logic [3:0] be);
    if (be[3]) return 2'd3;
    if (be[2]) return 2'd2;
    if (be[1]) return 2'd1;
    return 2'd0;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // Byte Count of a memory read's completion (§2.3.1.1, Table 2-37): from the first enabled
  // byte to the last; 1 for a zero-length read. `len_dw` is 1..1024; the result is 1..4096,
  // whose 12-bit field encodes 4096 as 0.
  function automatic logic [12:0] read_byte_count(logic [10:0] len_dw, logic [3:0] first_be, logic [3:0] last_be);
    if (len_dw == 11'd1) begin
      if (first_be == 4'h0) return 13'd1;
      return 13'(last_enabled(first_be)) - 13'(first_enabled(first_be)) + 13'd1;
    end
    // (A Last DW BE of 0 in a longer request is malformed; it counts as all enabled, as the
    // platform's C++ completers count it.)
    return {len_dw, 2'b00} - 13'(first_enabled(first_be)) - (last_be == 4'h0 ? 13'd0 : 13'd3 - 13'(last_enabled(last_be)));
  endfunction

  // DW0 of a TLP (§2.2.1): TC, Attr, TH, TD, EP and AT zero; a Length of 1024 encodes as 0.
  function automatic logic [31:0] dw0(logic [2:0] fmt, logic [4:0] typ, logic [9:0] len_dw);
    return {fmt, typ, 14'd0, len_dw};
  endfunction

endpackage
