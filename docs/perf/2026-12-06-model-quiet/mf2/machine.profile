# machine profile of vm, measured 2026-12-06T23:33Z by lincoll_info --calibrate
# (2 CPUs online, /proc/loadavg 1.29 2.91 3.08 1/85 4928); figures in seconds, seconds per byte,
# flop/s; the medians of 3 runs (perf/calibrate.c says how each is measured)
name          vm
alpha         1.112e-06
beta          7.26215e-11
gamma         1.30014e-11
flops         8.73e+10
alpha_mapped  3.01e-07
alpha_net     2.4128e-05
beta_net      2.6087e-10
gamma_gf      1.30014e-11
gamma_reduce  7.75855e-12
handoff       1.2081e-05
beta_mapped   3.48501e-11
ports         1
