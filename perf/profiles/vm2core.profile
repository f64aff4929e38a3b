# lincoll_sim machine profile of vm, measured 2026-12-04T22:32Z by perf/calibrate_profile.sh
# (2 CPUs, load average 1.26 0.46 0.17 when it ran).  Two ranks of this host:
#   tag_lat p50 (8 B)   0.416 us      -> alpha
#   tag_bw (4 MiB)      15439.2 MB/s    -> beta
#   GF(2^8) lincomb     97.65 GB/s, float SUM reduce 160.85 GB/s -> gamma (the slower)
#   dgemm 512^3         118.5 GFlop/s -> flops
name    vm2core
alpha   4.16e-07
beta    6.477e-11
gamma   1.024e-11
flops   1.185e+11
ports   1
