# perf/plot/repair.gp: repair of one lost chunk on the emulated cluster, from
# the table perf/repair/repair_emu.sh writes (columns: k read_s star_s tree_s
# chain_s chain_slices cpu_lc_max cpu_all_max; '#' lines are comments).
# Upper panel: median time of the one-chunk read and of each schedule against
# k; lower panel: each schedule's time over the read's (the chain's goal, 1.3,
# dashed).
#   gnuplot -e "in='repair.tsv'; out='repair.png'; when='2025-01-01'; what='64m chunks'" perf/plot/repair.gp
if (!exists("in")) { print "repair.gp: set in='repair.tsv' (and out, when, what)"; exit status 2 }
if (!exists("out")) { out = in . ".png" }
if (!exists("when")) { when = "" }
if (!exists("what")) { what = "" }
set terminal pngcairo size 900,760 noenhanced font ",10"
set output out
set datafile missing NaN
set multiplot layout 2,1 title sprintf("repair of one lost chunk, k survivors + 1 replacement on k + 1 emulated hosts (%s%s%s)", what, (what ne "" && when ne "") ? ", " : "", when)
set grid
set key top left
set xlabel "k (survivors)"
set xtics 1
set ylabel "time (s)"
set yrange [0:*]
plot in using 1:2 with linespoints lw 2 pt 7 lc rgb "black" title "read one chunk (one link)", \
     in using 1:3 with linespoints lw 2 pt 5 lc 1 title "star", \
     in using 1:4 with linespoints lw 2 pt 9 lc 2 title "tree (PPR)", \
     in using 1:5 with linespoints lw 2 pt 11 lc 3 title "chain (ECPipe)"
set ylabel "time / read time"
set logscale y 2
set yrange [0.5:*]
plot in using 1:($3/$2) with linespoints lw 2 pt 5 lc 1 title "star", \
     in using 1:($4/$2) with linespoints lw 2 pt 9 lc 2 title "tree", \
     in using 1:($5/$2) with linespoints lw 2 pt 11 lc 3 title "chain", \
     1.3 with lines lc rgb "gray" dt 2 title "chain goal 1.3", \
     1 with lines lc rgb "black" dt 3 notitle
unset multiplot
