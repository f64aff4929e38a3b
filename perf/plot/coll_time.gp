# perf/plot/coll_time.gp: one collective's time against message size, lincoll
# beside Open MPI and (allreduce) Gloo, from a table perf/rhd_sweep.sh writes
# (OUT_DIR/OP.tsv: size, algo, lincoll_avg_us, lincoll_p50_us, predicted_us,
# ompi_us, gloo_us, ratio_ompi, ratio_gloo, ratio_ompi_best[, ucc_us,
# ratio_ucc]; "nan" = none; UCC where perf/anchors/build.sh built ucc_coll).
# Upper panel: average time per call (log-log) with the plan's alpha-beta-gamma
# prediction; lower panel: lincoll / Open MPI and lincoll / Gloo (below 1:
# lincoll faster).
#   gnuplot -e "in='rhd/allreduce.tsv'; out='allreduce_time.png'; op='allreduce'; ranks=2" \
#           perf/plot/coll_time.gp
if (!exists("in")) { print "coll_time.gp: set in='OP.tsv' (and out, op, ranks)"; exit status 2 }
if (!exists("out")) { out = in . ".time.png" }
if (!exists("op")) { op = "collective" }
if (!exists("ranks")) { ranks = "?" }
if (!exists("when")) { when = "" }
has_gloo = int(system(sprintf("awk -F'\t' 'NR > 1 && $7 != \"nan\" && $7 != \"\" {n++} END {print n + 0}' '%s'", in)))
has_ucc = int(system(sprintf("awk -F'\t' 'NR > 1 && NF >= 12 && $11 != \"nan\" && $11 != \"\" {n++} END {print n + 0}' '%s'", in)))
set terminal pngcairo size 900,760 noenhanced font ",10"
set output out
set datafile separator "\t"
set datafile missing "nan"
set multiplot layout 2,1 title sprintf("%s, %s ranks%s", op, "" . ranks, when eq "" ? "" : " (" . when . ")")
set grid
set key top left
set logscale x 2
set format x "%.0b%BB"
set xlabel "message size"
set logscale y 10
set ylabel "time per call (us), lower is better"
gl = has_gloo > 0 ? sprintf(", '%s' skip 1 using 1:7 with linespoints lw 2 pt 9 title 'Gloo halving-doubling'", in) : ""
gl = gl . (has_ucc > 0 ? sprintf(", '%s' skip 1 using 1:11 with linespoints lw 2 pt 11 title 'UCC (tl/ucp)'", in) : "")
eval sprintf("plot '%s' skip 1 using 1:3 with linespoints lw 2 pt 7 title 'lincoll (average)', '%s' skip 1 using 1:5 with lines dt 2 lw 2 title 'lincoll alpha-beta-gamma prediction', '%s' skip 1 using 1:6 with linespoints lw 2 pt 5 title 'Open MPI'%s", in, in, in, gl)
unset logscale y
set ylabel "lincoll / anchor (time ratio)"
set key top right
set yrange [0:*]
gr = has_gloo > 0 ? sprintf(", '%s' skip 1 using 1:9 with linespoints lw 2 pt 9 title 'lincoll / Gloo'", in) : ""
gr = gr . (has_ucc > 0 ? sprintf(", '%s' skip 1 using 1:12 with linespoints lw 2 pt 11 title 'lincoll / UCC'", in) : "")
eval sprintf("plot '%s' skip 1 using 1:8 with linespoints lw 2 pt 5 title 'lincoll / Open MPI', 1 with lines lc rgb 'gray' dt 3 notitle%s", in, gr)
unset multiplot
