# perf/plot/ucc_ratio.gp: lincoll / UCC time ratio against message size for
# the five collectives at one rank count and one memory kind, after (solid)
# and before (dashed, where measured), from the tables perf/ucc_compare.sh
# writes (DIR/pN_OP.tsv: size, ucc_us, host_us, mem_us, before_host_us,
# before_mem_us, host/ucc, mem/ucc, before_host/ucc, before_mem/ucc,
# host_algo, mem_algo; "nan" = none).  Below 1: lincoll faster.
#   gnuplot -e "dir='OUT'; n=2; mem='host'; out='p2_host.png'" perf/plot/ucc_ratio.gp
if (!exists("dir")) { print "ucc_ratio.gp: set dir='OUT' (and n, mem, out)"; exit status 2 }
if (!exists("n")) { n = 2 }
if (!exists("mem")) { mem = "host" }
if (!exists("out")) { out = sprintf("%s/p%d_%s.png", dir, n, mem) }
if (!exists("ops")) { ops = "allreduce reduce_scatter allgather bcast reduce" }
if (!exists("when")) { when = "" }
after = mem eq "host" ? 7 : 8
before = mem eq "host" ? 9 : 10
what = mem eq "host" ? "host buffers (malloc)" : "lincoll memory (lincoll_mem_alloc)"
set terminal pngcairo size 900,560 noenhanced font ",10"
set output out
set datafile separator "\t"
set datafile missing "nan"
set title sprintf("lincoll / UCC tl/ucp, %d ranks, %s%s", n, what, when eq "" ? "" : " (" . when . ")")
set grid
set key top right
set logscale x 2
set format x "%.0b%BB"
set xlabel "message size"
set logscale y 2
set ylabel "lincoll time / UCC time (below 1: lincoll faster)"
set yrange [0.03:8]
f(op) = sprintf("%s/p%d_%s.tsv", dir, n, op)
plot for [i = 1:words(ops)] f(word(ops, i)) skip 1 using 1:after with linespoints lw 2 lc i pt 7 title word(ops, i), \
     for [i = 1:words(ops)] f(word(ops, i)) skip 1 using 1:before with lines lw 1 lc i dt 2 title word(ops, i) . " before", \
     1 with lines lc rgb "black" dt 3 notitle
