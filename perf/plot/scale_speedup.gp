# perf/plot/scale_speedup.gp: encode speed-up t(p = 1) / t(p) against p on
# the emulated cluster (p ports on p links), measured (points) beside the
# theory (dashed: ceil(log2 K) / ceil(log_{p+1} K) for prepare_shoot,
# ceil(K-1) / ceil((K-1)/p) for direct).  Input: speedup.tsv from
# perf/scale/scale_report.py (K size algo p measured theory).
#   gnuplot -e "in='speedup.tsv'; out='speedup.png'" perf/plot/scale_speedup.gp
if (!exists("in")) { print "scale_speedup.gp: set in='speedup.tsv' (and out)"; exit status 2 }
if (!exists("out")) { out = in . ".png" }
if (!exists("when")) { when = "" }
set terminal pngcairo size 1000,460 noenhanced font ",10"
set output out
set datafile separator "\t"
set datafile missing NaN
set multiplot layout 1,2 title sprintf("encode speed-up against p (links)%s", when eq "" ? "" : " (" . when . ")")
set grid
set xlabel "p (ports = links)"
set ylabel "t(p = 1) / t(p)"
set xrange [0.8:3.2]
set xtics 1
set yrange [0:*]
set key top left
Ks = "4 8 16"
do for [a in "prepare_shoot direct"] {
  set title a
  plot for [i = 1:words(Ks)] in using ((strcol(3) eq a && $1 == word(Ks, i) + 0 && $2 > 1048576) ? $4 : NaN):5 with linespoints lw 2 lc i pt 7 title sprintf("K=%s 8 MiB", word(Ks, i)), \
       for [i = 1:words(Ks)] in using ((strcol(3) eq a && $1 == word(Ks, i) + 0 && $2 <= 1048576) ? $4 : NaN):5 with linespoints lw 1 lc i pt 6 title sprintf("K=%s 1 MiB", word(Ks, i)), \
       for [i = 1:words(Ks)] in using ((strcol(3) eq a && $1 == word(Ks, i) + 0) ? $4 : NaN):6 with linespoints lw 1 lc i dt 2 pt 2 ps 1.2 notitle
}
unset multiplot
