# perf/plot/storage_load.gp: lincoll-ecd and Ceph by client count, from the
# medians.csv of perf/daemon/compare_ceph.sh (columns system,clients,op,
# size,reps,ops,MBps,ops_s,mean_ms,max_ms,p50_ms,p99_ms,...).
# metric='throughput': MB/s; metric='latency': mean latency (ms).  One panel
# per operation (put, get) and object size.
#   gnuplot -e "in='medians.csv'; out='throughput.png'; metric='throughput'; nodes=12" perf/plot/storage_load.gp
if (!exists("in")) { print "storage_load.gp: set in='medians.csv' (and out, metric, nodes)"; exit status 2 }
if (!exists("out")) { out = in . ".png" }
if (!exists("metric")) { metric = "throughput" }
if (!exists("nodes")) { nodes = 12 }
col = (metric eq "latency") ? 9 : 7
ylab = (metric eq "latency") ? "mean latency (ms)" : "MB/s (10^6 bytes/s)"
set terminal pngcairo size 1200,720 noenhanced font ",10"
set output out
set datafile separator ","
set datafile missing "nan"
sizes = system(sprintf("tail -n +2 '%s' | cut -d, -f4 | sort -n -u | tr '\\n' ' '", in))
ns = words(sizes)
set multiplot layout 2,ns title sprintf("lincoll-ecd (%d daemons) and Ceph (%d OSDs), RS(4,2) / EC k=4 m=2, medians: %s", nodes, nodes, ylab)
set grid
set key top left
set logscale x 2
set xlabel "concurrent clients"
set ylabel ylab
if (metric eq "latency") { set logscale y } else { set yrange [0:*] }
rows(sys, op, s) = sprintf("< grep '^%s,[0-9]*,%s,%s,' '%s' | sort -t, -k2,2n", sys, op, s, in)
human(b) = (b >= 1048576) ? sprintf("%d MiB", b / 1048576) : sprintf("%d KiB", b / 1024)
do for [op in "put get"] {
  do for [i = 1:ns] {
    s = word(sizes, i)
    set title sprintf("%s, %s", op, human(s + 0))
    plot rows("lincoll", op, s) using 2:col with linespoints lw 2 pt 7 lc 1 title "lincoll-ecd", \
         rows("ceph", op, s) using 2:col with linespoints lw 2 pt 5 lc 2 title "Ceph"
  }
}
unset multiplot
