# perf/plot/scale_encode.gp: all-to-all encode on the emulated cluster
# (perf/scale/scale.sh), measured (solid, points) and predicted (dashed) time
# against K, one panel per p (p ports on p links).  Input: the TSV
# perf/scale/scale_report.py writes (p K algo measured_ms predicted_ms).
#   gnuplot -e "in='encode_8388608.tsv'; out='encode.png'; size='8 MiB'" perf/plot/scale_encode.gp
if (!exists("in")) { print "scale_encode.gp: set in='encode_<size>.tsv' (and out, size)"; exit status 2 }
if (!exists("out")) { out = in . ".png" }
if (!exists("size")) { size = "" }
if (!exists("when")) { when = "" }
algos = "prepare_shoot best_window direct dft"
set terminal pngcairo size 1200,440 noenhanced font ",10"
set output out
set datafile separator "\t"
set datafile missing NaN
set multiplot layout 1,3 title sprintf("all-to-all encode, %s packets: measured (solid, dots) vs predicted (dashed, crosses)%s", size, when eq "" ? "" : " (" . when . ")")
set grid
set logscale x 2
set logscale y 10
set xlabel "K (hosts)"
set ylabel "ms per encode"
set key top left
set xrange [3:20]
rows(pp) = int(system(sprintf("awk -F'\t' -v p=%d '$1 == p && $4 != \"NaN\" {n++} END {print n + 0}' '%s'", pp, in)))
do for [pp = 1:3] {
  set title sprintf("p = %d", pp)
  if (rows(pp) == 0) {
    set label 1 "no runs" at graph 0.5, 0.5 center
    set yrange [1:10]
    plot 2 with lines lc rgb "white" notitle
    set autoscale y
    unset label 1
    continue
  }
  plot for [i = 1:words(algos)] in using (($1 == pp && strcol(3) eq word(algos, i)) ? $2 : NaN):4 with linespoints lw 2 lc i pt 7 title word(algos, i), \
       for [i = 1:words(algos)] in using (($1 == pp && strcol(3) eq word(algos, i)) ? $2 : NaN):5 with linespoints lw 1 lc i dt 2 pt 2 ps 1.2 notitle
}
unset multiplot
