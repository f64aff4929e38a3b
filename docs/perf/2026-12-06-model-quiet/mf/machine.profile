# machine profile of vm, measured 2026-12-06T23:17Z by lincoll_info --calibrate
# (2 CPUs online, /proc/loadavg 3.05 3.19 3.02 1/87 25158); figures in seconds, seconds per byte,
# flop/s; the medians of 3 runs (perf/calibrate.c says how each is measured)
name          vm
alpha         1.232e-06
beta          7.73762e-11
gamma         1.53662e-11
flops         8.98e+10
alpha_mapped  4.21e-07
alpha_net     2.45e-05
beta_net      3.34612e-10
gamma_gf      1.53662e-11
gamma_reduce  7.1803e-12
handoff       1.3306e-05
beta_mapped   5.96447e-11
ports         1
