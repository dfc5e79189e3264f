#!/usr/bin/env bash
# Gumbel root search against PUCT at equal playouts, one network, on the copenhagen suite.
set -u
# NET: the first learning-check run's generation-1 network (docs/learning-check/v2-first-run), not
# kept in the repository; any network file works. Run 2026-12-01 at nice 19 beside other work.
NET=runs/lc-v2/gen-001/train/network.safetensors
for p in 16 64 200; do
  nice -n 19 go run ./cmd/eval match -variant copenhagen -openings suite -seed 7 \
    -a "net=$NET,playouts=$p,root=gumbel" -b "net=$NET,playouts=$p" \
    -elo0 -25 -elo1 25 -max-games 120 -out runs/gvp-$p 
done
