#!/bin/sh
# relabel.sh GUEST_LOG > OUT: the exp build's lines as transport RUNG@pool4k
awk '/@@FRING-BEGIN /{x = ($0 ~ /-exp-/)} { if (x && /@@FRING-BENCH/) gsub(/transport=bufpool-registered/, "transport=bufpool-registered@pool4k"); print }' "$1"
