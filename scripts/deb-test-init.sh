#!/bin/sh
# scripts/deb-test-init.sh -- PID 1 of ./build.sh deb-test's guest (see
# scripts/deb-test.sh): copied into the debootstrapped root as
# /uring-spawn-init, which the guest boots from over virtio-9p (read-write,
# a throw-away copy).  Mounts the usual file systems and tracefs, runs
# /root/uring-spawn-deb-test/guest.sh with its output in out/guest.log,
# leaves out/status and out/dmesg, powers off.

PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
D=/root/uring-spawn-deb-test

mount -t proc proc /proc
mount -t sysfs sysfs /sys
grep -q ' /dev ' /proc/mounts || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p /run/lock && chmod 1777 /run/lock
mount -t tracefs tracefs /sys/kernel/tracing
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
echo uring-spawn-deb-test > /proc/sys/kernel/hostname
echo 4 > /proc/sys/kernel/printk

echo "uring-spawn-deb-test: running the guest script" > /dev/console
cd /root
env -i PATH=$PATH HOME=/root LANG=C.UTF-8 TERM=dumb USER=root LOGNAME=root \
  sh $D/guest.sh > $D/out/guest.log 2>&1 < /dev/null
echo $? > $D/out/status
dmesg > $D/out/dmesg 2>&1
sync
echo "uring-spawn-deb-test: done, status $(cat $D/out/status)" > /dev/console
echo o > /proc/sysrq-trigger
sleep 5
echo b > /proc/sysrq-trigger
while :; do sleep 1; done
