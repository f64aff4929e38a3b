# perf/plot/gf.gp: GF(2^8) encode throughput (data in, GB/s) per configuration
# and fragment size: lincoll beside ISA-L's ec_encode_data and the stream
# ceiling (read k sources, write m outputs, no GF math), measured in the same
# process.  Input: the table `perf/plot/tables.sh gf-tsv gf.csv` makes from
# `lincoll_perf -t gf -f csv` (label, lincoll, isal, ceiling; "-" = none).
#   perf/plot/tables.sh gf-tsv gf.csv > gf.tsv
#   gnuplot -e "in='gf.tsv'; out='gf.png'" perf/plot/gf.gp
if (!exists("in")) { print "gf.gp: set in='gf.tsv' (from perf/plot/tables.sh gf-tsv)"; exit status 2 }
if (!exists("out")) { out = in . ".png" }
if (!exists("when")) { when = "" }
set terminal pngcairo size 1000,560 noenhanced font ",10"
set output out
set datafile separator "\t"
set datafile missing "-"
set title sprintf("GF(2^8) encode, data-in GB/s (k + m, fragment bytes)%s", when eq "" ? "" : " (" . when . ")")
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key outside right top vertical
set ylabel "GB/s of data in, higher is better"
set yrange [0:*]
set xtics rotate by -30 scale 0
plot in using 2:xtic(1) title columnheader(2), '' using 3 title columnheader(3), '' using 4 title columnheader(4)
