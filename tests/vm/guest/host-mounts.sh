#!/bin/sh
# /host/proc and /host/sys as the DaemonSet's hostPath volumes give them to
# the agent: the node's /proc and /sys (with /sys/fs/cgroup under it), read-only.
set -e
mkdir -p /host/proc /host/sys
mountpoint -q /host/proc || mount --bind /proc /host/proc
mountpoint -q /host/sys || mount --rbind /sys /host/sys
mount -o remount,bind,ro /host/proc
# Every mount under /host/sys read-only, deepest last (the top one first).
for m in $(awk '$5 ~ "^/host/sys" {print $5}' /proc/self/mountinfo); do
  mount -o remount,bind,ro "$m" || true
done
