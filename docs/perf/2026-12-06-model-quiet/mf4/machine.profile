# machine profile of vm, measured 2026-12-06T23:36Z by lincoll_info --calibrate
# (2 CPUs online, /proc/loadavg 2.17 2.64 2.95 1/86 10927); figures in seconds, seconds per byte,
# flop/s; the medians of 3 runs (perf/calibrate.c says how each is measured)
name          vm
alpha         1.192e-06
beta          8.35126e-11
gamma         1.36023e-11
flops         8.64e+10
alpha_mapped  3.81e-07
alpha_net     1.8345e-05
beta_net      2.02413e-10
gamma_gf      1.36023e-11
gamma_reduce  8.02311e-12
handoff       5.696e-06
beta_mapped   2.1903e-11
ports         1
