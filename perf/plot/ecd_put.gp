# perf/plot/ecd_put.gp: lincoll-ecd put and get throughput on the emulated
# cluster against its links, from the summary.csv of
# perf/daemon/ecd_put_emu.sh (columns op,size,rep,wall_s,MBps,raw_ratio,
# anchor_ratio,wire_bound_s,wire_ratio,...; medians).
# Upper panel: MB/s per object size of the plain TCP stream (the anchor), put
# and get, with the link rate and 0.8 of it; lower panel: each operation's
# time bound by its busiest link direction over its measured time
# (1 = that link never idle).  tls=1 (ecd_put_emu.sh --tls) adds put-tls and
# get-tls, the cluster with keys, dashed.
#   gnuplot -e "in='summary.csv'; out='put.png'; rate='1gbit'; Bps=125e6" perf/plot/ecd_put.gp
if (!exists("in")) { print "ecd_put.gp: set in='summary.csv' (and out, rate, Bps)"; exit status 2 }
if (!exists("out")) { out = in . ".png" }
if (!exists("rate")) { rate = "1gbit" }
if (!exists("Bps")) { Bps = 125e6 }
if (!exists("tls")) { tls = 0 }
set terminal pngcairo size 900,760 noenhanced font ",10"
set output out
set datafile separator ","
set datafile missing ""
set multiplot layout 2,1 title sprintf("lincoll-ecd RS(4,2) on the emulated cluster, links %s (tbf), medians", rate)
set grid
set key bottom right
set logscale x 2
set format x "%.0b%BB"
set xlabel "object size"
set ylabel "MB/s (10^6 bytes/s)"
set yrange [0:*]
# one operation's rows (a filtered input keeps its points joined)
rows(o) = sprintf("< grep '^%s,' '%s'", o, in)
if (tls) {
plot rows("tcp") using 2:5 with linespoints lw 2 pt 7 lc rgb "gray40" title "plain TCP stream (anchor)", \
     rows("put") using 2:5 with linespoints lw 2 pt 7 lc 1 title "put (--insecure)", \
     rows("get") using 2:5 with linespoints lw 2 pt 5 lc 2 title "get (--insecure)", \
     rows("put-tls") using 2:5 with linespoints lw 2 dt 2 pt 6 lc 1 title "put (TLS 1.3-PSK)", \
     rows("get-tls") using 2:5 with linespoints lw 2 dt 2 pt 4 lc 2 title "get (TLS 1.3-PSK)", \
     Bps / 1e6 with lines lc rgb "black" dt 2 title "link rate", \
     0.8 * Bps / 1e6 with lines lc rgb "red" dt 3 title "0.8 x link rate"
} else {
plot rows("tcp") using 2:5 with linespoints lw 2 pt 7 lc rgb "gray40" title "plain TCP stream (anchor)", \
     rows("put") using 2:5 with linespoints lw 2 pt 7 lc 1 title "put", \
     rows("get") using 2:5 with linespoints lw 2 pt 5 lc 2 title "get", \
     Bps / 1e6 with lines lc rgb "black" dt 2 title "link rate", \
     0.8 * Bps / 1e6 with lines lc rgb "red" dt 3 title "0.8 x link rate"
}
set ylabel "wire bound / measured time"
set yrange [0:1.1]
if (tls) {
plot rows("tcp") using 2:9 with linespoints lw 2 pt 7 lc rgb "gray40" title "tcp", \
     rows("put") using 2:9 with linespoints lw 2 pt 7 lc 1 title "put", \
     rows("get") using 2:9 with linespoints lw 2 pt 5 lc 2 title "get", \
     rows("put-tls") using 2:9 with linespoints lw 2 dt 2 pt 6 lc 1 title "put-tls", \
     rows("get-tls") using 2:9 with linespoints lw 2 dt 2 pt 4 lc 2 title "get-tls"
} else {
plot rows("tcp") using 2:9 with linespoints lw 2 pt 7 lc rgb "gray40" title "tcp", \
     rows("put") using 2:9 with linespoints lw 2 pt 7 lc 1 title "put", \
     rows("get") using 2:9 with linespoints lw 2 pt 5 lc 2 title "get"
}
unset multiplot
