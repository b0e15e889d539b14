#!/bin/sh
# PID 1 of the user-mode Linux guest dpusim boots (docs/linux.md). The root file system is the
# host's, through hostfs, mounted read-only; everything the guest writes goes to tmpfs. The
# guest's userland is the host's Debian tools (ip, ethtool, lspci, ping).
#
# Commands come one per line on the console, "ID COMMAND"; each runs in a shell of its own
# between "@@begin ID" and "@@end ID RC", which the bridge (models/host/linux_bridge.h) turns
# into one "sh" event. "@@ready" says the guest takes commands.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/tmp
mkdir -p /run/netns
# The kernel's own console messages from now on: warnings and worse (dmesg has the rest).
echo 4 > /proc/sys/kernel/printk
stty -echo 2>/dev/null
echo "@@ready"
while IFS= read -r line; do
  id=${line%% *}
  cmd=${line#* }
  echo "@@begin $id"
  sh -c "$cmd" </dev/null 2>&1
  echo "@@end $id $?"
done
echo "@@eof"
