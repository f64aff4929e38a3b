# perf/plot/mpi_preload_8m.gp: the 8 MiB check of liblincoll_mpi.so: per collective,
# median time preloaded over median time plain Open MPI at 2 and 4 ranks (bars).
# Input: a TSV of "op ratio_np2 ratio_np4" rows ('#' lines are comments).
#   gnuplot -e "in='focus8m_ratio.tsv'; out='focus8m.png'" perf/plot/mpi_preload_8m.gp
if (!exists("in")) { print "mpi_preload_8m.gp: set in='focus8m_ratio.tsv' and out"; exit status 2 }
if (!exists("out")) { out = in . ".png" }
set terminal pngcairo size 700,400 noenhanced font ",10"
set output out
set datafile separator "\t"
set title "mpi_coll at 8 MiB: preloaded liblincoll_mpi.so / plain Open MPI (medians of 5 interleaved runs)"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set yrange [0:*]
set ylabel "time ratio (below 1: lincoll faster)"
set key top left
plot in using 2:xtic(1) title "2 ranks", '' using 3 title "4 ranks", \
     0.5 with lines lc rgb "black" dt 2 title "goal 0.5", 1 with lines lc rgb "gray" dt 3 title "1.0"
