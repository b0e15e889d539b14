// rtl_dma_tx_arb: N TLP sources onto the one transmit stream, a whole TLP at a time, source 0
// first. The choice is made when a TLP's first beat is offered and held until its last beat
// moves, so a beat once offered stays offered (the AXI4-Stream rule) even if a source of higher
// priority becomes valid meanwhile. m_valid and m_data follow the chosen source combinationally;
// s_ready follows m_ready.
module rtl_dma_tx_arb #(
  parameter int unsigned N = 3
) (
  input  logic          clk,
  input  logic          rst,
  input  logic [N-1:0]  s_valid,
  output logic [N-1:0]  s_ready,
  input  logic [31:0]   s_data [N],
  input  logic [N-1:0]  s_last,
  output logic          m_valid,
  input  logic          m_ready,
  output logic [31:0]   m_data,
  output logic          m_last
);
  localparam int unsigned SEL_W = N > 1 ? $clog2(N) : 1;
  logic             locked;
  logic [SEL_W-1:0] held, pick, sel;

  always_comb begin
    pick = '0;
    for (int i = N - 1; i >= 0; i--) if (s_valid[i]) pick = SEL_W'(i);
  end
  assign sel     = locked ? held : pick;
  assign m_valid = s_valid[sel];
  assign m_data  = s_data[sel];
  assign m_last  = s_last[sel];
  always_comb begin
    s_ready      = '0;
    s_ready[sel] = m_ready;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      locked <= 1'b0;
    end else if (m_valid) begin
      locked <= !(m_ready && m_last);
      held   <= sel;
    end
  end
endmodule
