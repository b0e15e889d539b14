// The fp8 unit's sources in compile order (verilator -f): the package first, the top last.
fp8_pkg.sv
fp8_unpack.sv
fp8_prepare.sv
fp8_compute.sv
fp8_normalize.sv
fp8_round_pack.sv
fp8_lane.sv
fp8_unit.sv
