// rtl_dma_ctrl: a copy's life. The doorbell starts it (refused at once, as an error, when
// DMA_LEN is 0 or Bus Master Enable is clear); it runs until the writer has sent the last byte,
// or, on the first error (a failed completion, Bus Master Enable cleared while requests are due),
// stops issuing and drains: it ends once every outstanding read has completed (the hard IP core
// ends a read the host never answers with a completion of its own, so this wait is bounded). The
// end sets DONE or ERROR with its cause and then, with IRQ_EN, requests the MSI-X vector, so the
// interrupt follows the copy's last write and the status change.
module rtl_dma_ctrl
  import rtl_dma_pkg::*;
(
  input  logic             clk,
  input  logic             rst,
  input  logic             doorbell,      // a pulse from the register file
  input  logic [LEN_W-1:0] len,
  input  logic             irq_en,
  input  logic             bus_master,
  input  logic             rd_quiet,
  input  logic             rd_blocked,
  input  logic             rd_err,
  input  logic [2:0]       rd_err_cause,
  input  logic [2:0]       rd_err_status,
  input  logic             wr_finished,
  input  logic             wr_blocked,
  output logic             busy,
  output logic             start,         // a pulse: the reader and writer begin
  output logic             run,
  output logic             done_set,      // pulses for the register file
  output logic             err_set,
  output logic [2:0]       err_cause,
  output logic [2:0]       err_status,
  output logic             irq_valid,
  input  logic             irq_ready,
  output logic             active
);
  typedef enum logic [1:0] {S_IDLE, S_RUN, S_DRAIN, S_IRQ} state_e;
  state_e     state;
  logic [2:0] cause_q, status_q;

  assign busy      = state != S_IDLE;
  assign run       = state == S_RUN && !start;  // the reader and writer restart at `start`
  assign irq_valid = state == S_IRQ;
  assign active    = doorbell || start || done_set || err_set || state == S_DRAIN || state == S_IRQ ||
                     (run && (rd_err || rd_blocked || wr_blocked || wr_finished));

  always_ff @(posedge clk) begin
    start    <= 1'b0;
    done_set <= 1'b0;
    err_set  <= 1'b0;
    if (rst) begin
      state <= S_IDLE;
    end else begin
      case (state)
        S_IDLE: if (doorbell) begin
          if (len == '0 || !bus_master) begin
            err_set    <= 1'b1;
            err_cause  <= len == '0 ? CAUSE_LENGTH : CAUSE_BUS_MASTER;
            err_status <= CPL_SC;
            state      <= irq_en ? S_IRQ : S_IDLE;
          end else begin
            start <= 1'b1;
            state <= S_RUN;
          end
        end
        S_RUN: begin
          if (rd_err) begin
            cause_q  <= rd_err_cause;
            status_q <= rd_err_status;
            state    <= S_DRAIN;
          end else if (rd_blocked || wr_blocked) begin
            cause_q  <= CAUSE_BUS_MASTER;
            status_q <= CPL_SC;
            state    <= S_DRAIN;
          end else if (run && wr_finished) begin
            done_set <= 1'b1;
            state    <= irq_en ? S_IRQ : S_IDLE;
          end
        end
        S_DRAIN: if (rd_quiet) begin
          err_set    <= 1'b1;
          err_cause  <= cause_q;
          err_status <= status_q;
          state      <= irq_en ? S_IRQ : S_IDLE;
        end
        S_IRQ: if (irq_ready) state <= S_IDLE;
        default: state <= S_IDLE;
      endcase
    end
  end
endmodule
