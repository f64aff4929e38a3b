# perf/plot/scale_coll.gp: the five collectives on the emulated cluster
# against P, measured (solid, points) and predicted (dashed), one panel per
# operation.  Input: coll.tsv from perf/scale/scale_report.py (op P algo
# measured_ms predicted_ms).
#   gnuplot -e "in='coll.tsv'; out='coll.png'" perf/plot/scale_coll.gp
if (!exists("in")) { print "scale_coll.gp: set in='coll.tsv' (and out)"; exit status 2 }
if (!exists("out")) { out = in . ".png" }
if (!exists("when")) { when = "" }
ops = "allreduce reduce_scatter allgather bcast reduce"
algos = "rhd ring binomial"
set terminal pngcairo size 1500,440 noenhanced font ",10"
set output out
set datafile separator "\t"
set datafile missing NaN
set multiplot layout 1,5 title sprintf("collectives: measured (solid, dots) vs predicted (dashed, crosses) against P%s", when eq "" ? "" : " (" . when . ")")
set grid
set xlabel "P (hosts)"
set ylabel "ms"
set yrange [0:*]
set xrange [3:17]
set key top left
do for [o in ops] {
  set title o
  plot for [i = 1:words(algos)] in using ((strcol(1) eq o && strcol(3) eq word(algos, i)) ? $2 : NaN):4 with linespoints lw 2 lc i pt 7 title word(algos, i), \
       for [i = 1:words(algos)] in using ((strcol(1) eq o && strcol(3) eq word(algos, i)) ? $2 : NaN):5 with linespoints lw 1 lc i dt 2 pt 2 ps 1.2 notitle
}
unset multiplot
