# lincoll_sim machine profile: a node with one 100 Gb/s Ethernet NIC (RoCE v2
# or TCP through UCX).  Figures per rank, from nominal rates, not measured here:
#   beta  = 1 / (100 Gb/s = 12.5 GB/s);
#   alpha = 5 us per round (RoCE through a switch plus the software of a round;
#           TCP is nearer 15-20 us: pass --alpha to try it);
#   gamma = 1 / 10 GB/s (one core's GF lincomb or reduction);
#   flops = 50 GFlop/s (one core's double-precision GEMM).
name    eth100
alpha   5e-6
beta    8e-11
gamma   1e-10
flops   5e10
ports   1
