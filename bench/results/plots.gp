set terminal svg size 860,520 dynamic font 'sans,11'
set key outside right
set grid
set output '/work/main/bench/results/latency-memory-vm.svg'
set title 'Spawn call latency vs parent memory, vm (guest instruction clock; median)'
set ylabel 'µs (log scale)'
set logscale y
set xlabel 'parent state'
unset logscale x
plot for [i=2:7] '/work/main/bench/results/plot-memory-vm.dat' using 0:i:xtic(1) with linespoints title columnheader(i)
set output '/work/main/bench/results/throughput-threads-vm.svg'
set title 'Spawn+wait throughput vs threads, vm (guest instruction clock)'
set ylabel 'spawns/s'
unset logscale y
set xlabel 'threads spawning concurrently'
set logscale x 2
plot for [i=2:7] '/work/main/bench/results/plot-threads-vm.dat' using 1:i with linespoints title columnheader(i)
set output '/work/main/bench/results/latency-memory-host.svg'
set title 'Spawn call latency vs parent memory, host (wall clock; median)'
set ylabel 'µs (log scale)'
set logscale y
set xlabel 'parent state'
unset logscale x
plot for [i=2:5] '/work/main/bench/results/plot-memory-host.dat' using 0:i:xtic(1) with linespoints title columnheader(i)
set output '/work/main/bench/results/throughput-threads-host.svg'
set title 'Spawn+wait throughput vs threads, host (wall clock)'
set ylabel 'spawns/s'
unset logscale y
set xlabel 'threads spawning concurrently'
set logscale x 2
plot for [i=2:5] '/work/main/bench/results/plot-threads-host.dat' using 1:i with linespoints title columnheader(i)
