# perf/plot/scale_matmul.gp: distributed matmul on the emulated cluster,
# measured (points) and predicted (dashed) against P, the full plan and its
# communication alone.  Input: matmul.tsv from perf/scale/scale_report.py
# (P algo measured_ms predicted_ms comm_ms predicted_comm_ms).
#   gnuplot -e "in='matmul.tsv'; out='matmul.png'" perf/plot/scale_matmul.gp
if (!exists("in")) { print "scale_matmul.gp: set in='matmul.tsv' (and out)"; exit status 2 }
if (!exists("out")) { out = in . ".png" }
if (!exists("when")) { when = "" }
algos = "summa cannon 25d"
set terminal pngcairo size 1000,440 noenhanced font ",10"
set output out
set datafile separator "\t"
set datafile missing NaN
set multiplot layout 1,2 title sprintf("matmul (double): measured (dots) vs predicted (dashed, crosses)%s", when eq "" ? "" : " (" . when . ")")
set grid
set xlabel "P (hosts)"
set ylabel "ms"
set yrange [0:*]
set xrange [2:18]
set key top left
set title "with the GEMMs"
plot for [i = 1:words(algos)] in using (strcol(2) eq word(algos, i) ? $1 : NaN):3 with linespoints lw 2 lc i pt 7 title word(algos, i), \
     for [i = 1:words(algos)] in using (strcol(2) eq word(algos, i) ? $1 : NaN):4 with linespoints lw 1 lc i dt 2 pt 2 ps 1.2 notitle
set title "communication only"
plot for [i = 1:words(algos)] in using (strcol(2) eq word(algos, i) ? $1 : NaN):5 with linespoints lw 2 lc i pt 7 title word(algos, i), \
     for [i = 1:words(algos)] in using (strcol(2) eq word(algos, i) ? $1 : NaN):6 with linespoints lw 1 lc i dt 2 pt 2 ps 1.2 notitle
unset multiplot
