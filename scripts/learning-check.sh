#!/usr/bin/env bash
# The learning check (issue 6), not part of CI: within a time budget (two
# hours by default) on a 2-core machine, run the training loop on
# copenhagen from nothing, then play the best network against the
# network-free searcher at the same playout budget under the SPRT of
# cmd/eval match. The results and charts go to docs/learning-check/.
#
#   scripts/learning-check.sh                 # 2 hours
#   BUDGET=3600 scripts/learning-check.sh     # 1 hour
#   RUN=runs/lc2 scripts/learning-check.sh    # another run folder (resumes one that exists)
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${RUN:-runs/learning-check}
BUDGET=${BUDGET:-7200}        # seconds for the whole check
MATCH_TIME=${MATCH_TIME:-900} # seconds kept for the final match
PLAYOUTS=${PLAYOUTS:-25}      # the playout budget of both players in the final match (the config's gate's)
OUT=docs/learning-check
mkdir -p "$OUT"
start=$(date +%s)

go build -o "$RUN.bin/train" ./cmd/train
go build -o "$RUN.bin/eval" ./cmd/eval

# The loop, stopped (cleanly, by SIGTERM) when its share of the budget is
# spent; a stopped run keeps every finished stage.
loop_time=$((BUDGET - MATCH_TIME))
timeout --signal=TERM "$loop_time" "$RUN.bin/train" loop -config scripts/learning-check.toml -run "$RUN" | tee "$OUT/loop.log" || true

best=$(sed -n 's/.*"network": "\(.*\)".*/\1/p' "$RUN/best.json" 2>/dev/null || true)
if [ -z "$best" ]; then
	echo "learning check: no network was promoted in the loop's time: the network-free searcher stays the best" | tee "$OUT/result.txt"
	cp "$RUN/summary.md" "$RUN/summary.png" "$OUT/" 2>/dev/null || true
	exit 1
fi
left=$((BUDGET - ($(date +%s) - start)))
echo "learning check: final match of $best against the network-free searcher, $PLAYOUTS playouts each, ${left}s left"
timeout --signal=TERM "$((left > 60 ? left : 60))" "$RUN.bin/eval" match -variant copenhagen \
	-a "net=$best,playouts=$PLAYOUTS" -b "builtin:playouts=$PLAYOUTS" \
	-elo0 0 -elo1 50 -alpha 0.05 -beta 0.05 -max-games 1000 -seed 2026 -out "$RUN/final" | tee "$OUT/match.log" || true

cp "$RUN/summary.md" "$RUN/summary.png" "$RUN/summary.json" "$OUT/"
cp "$RUN/final/match.md" "$RUN/final/match.json" "$OUT/" 2>/dev/null || true
elapsed=$(($(date +%s) - start))
{
	echo "learning check: ${elapsed}s of a ${BUDGET}s budget on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
	grep -h "eval match: LLR\|eval match: H\|eval match: no decision" "$OUT/match.log" || true
} | tee "$OUT/result.txt"
