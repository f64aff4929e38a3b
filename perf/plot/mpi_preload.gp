# perf/plot/mpi_preload.gp: time of perf/anchors/mpi_coll with liblincoll_mpi.so
# preloaded over its time plain (medians), per collective, at np ranks.
# Input: ratio.tsv of perf/mpi/preload_report.py (np op bytes plain_us lincoll_us ratio).
#   gnuplot -e "in='ratio.tsv'; np=2; out='ratio_np2.png'" perf/plot/mpi_preload.gp
if (!exists("in")) { print "mpi_preload.gp: set in='ratio.tsv', np and out"; exit status 2 }
if (!exists("np")) { np = 2 }
if (!exists("out")) { out = in . ".png" }
ops = "allreduce reduce_scatter allgather bcast reduce"
set terminal pngcairo size 900,450 noenhanced font ",10"
set output out
set datafile separator "\t"
set datafile missing NaN
set title sprintf("mpi_coll: preloaded liblincoll_mpi.so / plain Open MPI, %d ranks (median times; below 1: lincoll faster)", np)
set grid
set logscale x 2
set logscale y 2
set xlabel "bytes"
set format x "%.0b %BB"
set format y "%g"
set ylabel "time ratio"
set key outside right
plot for [i = 1:words(ops)] in using (column(1) == np && strcol(2) eq word(ops, i) ? $3 : NaN):6 \
       with linespoints pt 7 ps 0.8 lc i title word(ops, i), \
     1 with lines lc rgb "black" dt 2 title "1.0", 0.5 with lines lc rgb "gray" dt 3 title "0.5"
