# perf/plot/matmul.gp: distributed matmul GFLOP/s per (ranks, n): lincoll's
# algorithms beside ScaLAPACK pdgemm in the same run.  Input: the table
# `perf/plot/tables.sh matmul-tsv matmul_compare.txt` makes from
# perf/matmul_compare.sh's output (label, ring, summa, cannon, 25d, ScaLAPACK;
# "-" = the algorithm's grid does not fit or the run failed).
#   perf/plot/tables.sh matmul-tsv matmul_compare.txt > matmul.tsv
#   gnuplot -e "in='matmul.tsv'; out='matmul.png'" perf/plot/matmul.gp
if (!exists("in")) { print "matmul.gp: set in='matmul.tsv' (from perf/plot/tables.sh matmul-tsv)"; exit status 2 }
if (!exists("out")) { out = in . ".png" }
if (!exists("when")) { when = "" }
set terminal pngcairo size 1000,560 noenhanced font ",10"
set output out
set datafile separator "\t"
set datafile missing "-"
set title sprintf("distributed matmul (double, n x n): GFLOP/s%s", when eq "" ? "" : " (" . when . ")")
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key outside right top vertical
set ylabel "GFLOP/s, higher is better"
set yrange [0:*]
set xtics scale 0
plot in using 2:xtic(1) title columnheader(2), '' using 3 title columnheader(3), \
     '' using 4 title columnheader(4), '' using 5 title columnheader(5), '' using 6 title columnheader(6)
