# perf/plot/coll_busbw.gp: one collective's bus bandwidth against message size
# (size / time x 2(P-1)/P for allreduce, (P-1)/P for reduce-scatter and
# allgather, 1 for bcast and reduce), lincoll beside Open MPI and Gloo, from
# perf/rhd_sweep.sh's OUT_DIR/OP.tsv (columns as in coll_time.gp).
#   gnuplot -e "in='rhd/allreduce.tsv'; out='allreduce_busbw.png'; op='allreduce'; ranks=2" \
#           perf/plot/coll_busbw.gp
if (!exists("in")) { print "coll_busbw.gp: set in='OP.tsv' (and out, op, ranks)"; exit status 2 }
if (!exists("out")) { out = in . ".busbw.png" }
if (!exists("op")) { op = "allreduce" }
if (!exists("ranks")) { ranks = 2 }
if (!exists("when")) { when = "" }
P = ranks + 0.0
f = (op eq "allreduce") ? 2 * (P - 1) / P : (op eq "reduce_scatter" || op eq "allgather") ? (P - 1) / P : 1.0
has_gloo = int(system(sprintf("awk -F'\t' 'NR > 1 && $7 != \"nan\" && $7 != \"\" {n++} END {print n + 0}' '%s'", in)))
set terminal pngcairo size 900,560 noenhanced font ",10"
set output out
set datafile separator "\t"
set datafile missing "nan"
set grid
set key top left
set logscale x 2
set format x "%.0b%BB"
set xlabel "message size"
set ylabel "bus bandwidth (GB/s), higher is better"
set title sprintf("%s, %s ranks: bus bandwidth = size / time x %.3g%s", op, "" . ranks, f, when eq "" ? "" : " (" . when . ")")
gl = has_gloo > 0 ? sprintf(", '%s' skip 1 using 1:($1 / $7 / 1000 * %g) with linespoints lw 2 pt 9 title 'Gloo halving-doubling'", in, f) : ""
eval sprintf("plot '%s' skip 1 using 1:($1 / $3 / 1000 * %g) with linespoints lw 2 pt 7 title 'lincoll', '%s' skip 1 using 1:($1 / $6 / 1000 * %g) with linespoints lw 2 pt 5 title 'Open MPI'%s", in, f, in, f, gl)
