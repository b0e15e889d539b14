// rtl_dma_buffer: the copy's data buffer, DEPTH words of four byte lanes. Each lane has its own
// write address, so a DW arriving at any byte alignment is written in one cycle (its four bytes
// fall in four different lanes); the read port returns a whole word, asynchronously (LUT RAM in
// an FPGA: the read data follows the address within the cycle).
module rtl_dma_buffer #(
  parameter int unsigned DEPTH_LOG2 = 11
) (
  input  logic                  clk,
  input  logic [3:0]            we,
  input  logic [DEPTH_LOG2-1:0] waddr [4],
  input  logic [7:0]            wdata [4],
  input  logic [DEPTH_LOG2-1:0] raddr,
  output logic [31:0]           rdata
);
  for (genvar lane = 0; lane < 4; lane++) begin : g_lane
    logic [7:0] mem [2**DEPTH_LOG2];
    always_ff @(posedge clk) if (we[lane]) mem[waddr[lane]] <= wdata[lane];
    assign rdata[8*lane +: 8] = mem[raddr];
  end
endmodule
