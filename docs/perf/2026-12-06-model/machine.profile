# machine profile of vm, measured 2026-12-06T03:02Z by lincoll_info --calibrate
# (2 CPUs online, /proc/loadavg 16.55 24.68 25.05 12/693 21493); figures in seconds, seconds per byte,
# flop/s; the medians of 3 runs (perf/calibrate.c says how each is measured)
name          vm
alpha         1.252e-06
beta          8.23696e-10
gamma         1.73016e-11
flops         3.51e+10
alpha_mapped  3.91e-07
alpha_net     2.4907e-05
beta_net      2.93307e-09
gamma_gf      1.73016e-11
gamma_reduce  7.9384e-12
handoff       0.000119493
beta_mapped   5.66998e-11
ports         1
