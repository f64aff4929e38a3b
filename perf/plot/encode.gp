# perf/plot/encode.gp: all-to-all encode, measured time against the
# alpha-beta-tau prediction C1 alpha + C2 tau(S), per algorithm, from the table
# perf/encode_sweep.sh prints (columns K p size algo chunks runs measured_us
# predicted_us ratio model-choice fastest-measured; '#' lines are comments).
# Upper panel: measured (solid) and predicted (dashed) time per packet size;
# lower panel: measured / predicted (1 = the model is exact).
#   gnuplot -e "in='encode_sweep.txt'; out='encode_K2.png'; K=2; p=1" perf/plot/encode.gp
# algos: the plan names to draw (default every one encode_sweep can report).
if (!exists("in")) { print "encode.gp: set in='encode_sweep.txt' (and out, K, p, algos)"; exit status 2 }
if (!exists("K")) { K = 2 }
if (!exists("p")) { p = 1 }
if (!exists("out")) { out = sprintf("%s.K%d_p%d.png", in, K, p) }
if (!exists("algos")) { algos = "zcopy_split zcopy prepare_shoot best_window direct dft dft_natural" }
if (!exists("when")) { when = "" }
# draw only the algorithms that have a row at this K and p
have(a) = int(system(sprintf("awk -v K=%d -v p=%d -v a='%s' '$1 == K && $2 == p && $4 == a {n++} END {print n + 0}' '%s'", K, p, a, in)))
list = ""
do for [w in algos] { if (have(w) > 0) { list = list . " " . w } }
if (words(list) == 0) { print sprintf("encode.gp: no rows for K=%d p=%d in %s", K, p, in); exit status 3 }
set terminal pngcairo size 900,760 noenhanced font ",10"
set output out
set datafile missing NaN
set multiplot layout 2,1 title sprintf("all-to-all encode, K = %d, p = %d: measured vs C1 alpha + C2 tau%s", K, p, when eq "" ? "" : " (" . when . ")")
set grid
set key top left
set logscale x 2
set format x "%.0b%BB"
set xlabel "packet size"
set logscale y 10
set ylabel "time per encode (us)"
sel(a) = ($1 == K && $2 == p && strcol(4) eq a)
plot for [i = 1:words(list)] in using (sel(word(list, i)) ? $3 : NaN):7 with linespoints lw 2 lc i pt 7 title word(list, i) . " measured", \
     for [i = 1:words(list)] in using (sel(word(list, i)) ? $3 : NaN):8 with lines lw 1 lc i dt 2 title word(list, i) . " predicted"
unset logscale y
set yrange [0:*]
set ylabel "measured / predicted"
plot for [i = 1:words(list)] in using (sel(word(list, i)) ? $3 : NaN):9 with linespoints lw 2 lc i pt 7 title word(list, i), \
     1 with lines lc rgb "gray" dt 3 notitle
unset multiplot
