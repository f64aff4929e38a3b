# perf/plot/scale_ratio.gp: measured / predicted of every run of
# perf/scale/scale.sh, by family, with the 1.3x goal band.  Input: ratio.tsv
# from perf/scale/scale_report.py (index family ratio).
#   gnuplot -e "in='ratio.tsv'; out='ratio.png'" perf/plot/scale_ratio.gp
if (!exists("in")) { print "scale_ratio.gp: set in='ratio.tsv' (and out)"; exit status 2 }
if (!exists("out")) { out = in . ".png" }
if (!exists("when")) { when = "" }
fams = "encode coll matmul"
set terminal pngcairo size 1000,400 noenhanced font ",10"
set output out
set datafile separator "\t"
set datafile missing NaN
set title sprintf("measured / predicted, every run (goal: between 1/1.3 and 1.3)%s", when eq "" ? "" : " (" . when . ")")
set grid
set xlabel "run"
set ylabel "measured / predicted"
set logscale y 2
set key top left
plot for [i = 1:words(fams)] in using 1:(strcol(2) eq word(fams, i) ? $3 : NaN) with points pt 7 ps 1 lc i title word(fams, i), \
     1.3 with lines lc rgb "gray" dt 2 title "1.3", 1/1.3 with lines lc rgb "gray" dt 2 notitle, 1 with lines lc rgb "black" dt 3 notitle
