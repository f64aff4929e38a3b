# lincoll_sim machine profile: a node with two 200 Gb/s InfiniBand (HDR) NICs.
# Figures per rank, from the hardware's nominal rates, not measured here:
#   beta  = 1 / (200 Gb/s = 25 GB/s) per port (one port per NIC);
#   alpha = one round's latency: ~1 us wire + switch, ~1 us software and
#           progress of a plan round (send, receive, match);
#   gamma = 1 / 10 GB/s: GF(2^8)/GF(2^16) lincomb or a float reduction on one
#           core with AVX2/AVX-512 (lincoll_perf -t gf, -t reduce on such a node);
#   flops = 50 GFlop/s: one core's double-precision GEMM (AVX-512, FMA).
name    ib200
alpha   2e-6
beta    4e-11
gamma   1e-10
flops   5e10
ports   2
