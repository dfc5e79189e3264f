#!/usr/bin/env bash
# The learning check, second edition (issue 10), not part of CI: on a 2-core
# machine, within a time budget (two hours by default), run the training
# loop on copenhagen from no network, with the human archive
# (archive:copenhagen, embedded) as data, then play the loop's best
# network against the built-in searcher at equal playouts (200 and 800, and
# 25 and 100 for the record) under the SPRT of cmd/eval match (H0 0, H1 50,
# alpha = beta = 0.05) on the rule set's opening suite. Outside the budget
# it then measures the best network's balance at 200 playouts beside the
# human archive's, and its fit to the archive's held-out and training games.
# Results, logs and charts go to docs/learning-check/.
#
#   scripts/learning-check.sh                 # 2 hours
#   BUDGET=3600 scripts/learning-check.sh     # 1 hour
#   RUN=runs/lc2 scripts/learning-check.sh    # another run folder (resumes one that exists)
#   OUT=docs/learning-check/lc-v4 scripts/learning-check.sh   # results into another folder
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${RUN:-runs/learning-check}
BUDGET=${BUDGET:-7200}          # seconds for the loop and the four final matches
MATCH_TIME=${MATCH_TIME:-1800}  # seconds of it kept for the final matches
RECORDS=${RECORDS:-archive:copenhagen}
OUT=${OUT:-docs/learning-check}  # results, logs and charts
mkdir -p "$OUT" "$RUN.bin"
start=$(date +%s)
cpu="$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"

go build -o "$RUN.bin/train" ./cmd/train
go build -o "$RUN.bin/eval" ./cmd/eval

# The loop, stopped cleanly (SIGTERM) when its share of the budget is spent;
# a stopped run keeps every finished stage.
loop_time=$((BUDGET - MATCH_TIME))
timeout --signal=TERM "$loop_time" "$RUN.bin/train" loop -config scripts/learning-check.toml -run "$RUN" | tee "$OUT/loop.log" || true
cp "$RUN/summary.md" "$RUN/summary.png" "$RUN/summary.json" "$OUT/" 2>/dev/null || true

best=$(sed -n 's/.*"network": "\(.*\)".*/\1/p' "$RUN/best.json" 2>/dev/null || true)
if [ -z "$best" ]; then
	echo "learning check: no network was promoted in the loop's time: the network-free searcher stays the best" | tee "$OUT/result.txt"
	exit 1
fi

# The final matches, inside the budget: 200 and 800 playouts are the check;
# 25 and 100 are reported beside them.
results=()
for p in 200 800 25 100; do
	left=$((BUDGET - ($(date +%s) - start)))
	if [ "$left" -lt 60 ]; then
		results+=("$p playouts: not played, the budget is spent")
		continue
	fi
	echo "learning check: $best against the built-in searcher, $p playouts each, ${left}s left"
	timeout --signal=TERM "$left" "$RUN.bin/eval" match -variant copenhagen -openings suite -seed 2026 \
		-a "net=$best,playouts=$p" -b "builtin:playouts=$p" -elo0 0 -elo1 50 -alpha 0.05 -beta 0.05 \
		-max-games 200 -odds 2,4,8 -odds-pairs 10 -out "$RUN/final-$p" | tee "$OUT/match-$p.log" || true
	cp "$RUN/final-$p/match.md" "$OUT/match-$p.md" 2>/dev/null || true
	cp "$RUN/final-$p/match.json" "$OUT/match-$p.json" 2>/dev/null || true
	results+=("$p playouts: $(grep -h "eval match: LLR" "$OUT/match-$p.log" | head -1 | sed 's/eval match: //')")
	results+=("  $(grep -h "eval match: H\|no decision" "$OUT/match-$p.log" | tail -1 | sed 's/eval match: //')")
	results+=("  $(grep -h "playout odds: .* needs" "$OUT/match-$p.log" | tail -1 | sed 's/eval match: //')")
done
elapsed=$(($(date +%s) - start))

# Outside the budget: balance at 200 playouts beside the archive, and the
# fit to human play on held-out and training games.
"$RUN.bin/eval" balance -variants copenhagen -player "net=$best,playouts=200" -games 300 -width 0.1 \
	-records "$RECORDS" -records-variant copenhagen-classic -seed 2026 -out "$RUN/balance" | tee "$OUT/balance.log" || true
cp "$RUN/balance/balance.md" "$RUN/balance/balance.json" "$RUN/balance/balance.png" "$OUT/" 2>/dev/null || true
for split in heldout train; do
	"$RUN.bin/eval" fit -net "$best" -records "$RECORDS" -split "$split" -search-playouts 200 \
		>"$OUT/fit-$split.json" 2>"$OUT/fit-$split.log" || true
done

{
	echo "learning check: loop and final matches ${elapsed}s of a ${BUDGET}s budget on $cpu"
	echo "best network: $best"
	printf '%s\n' "${results[@]}"
	grep -h "eval fit: net" "$OUT/fit-heldout.log" | sed 's/^/held-out: /' || true
	grep -h "eval fit: net" "$OUT/fit-train.log" | sed 's/^/training: /' || true
} | tee "$OUT/result.txt"
