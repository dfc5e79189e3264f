#!/bin/bash
# opentafl-match.sh: the shipped network against OpenTafl's alpha-beta AI at
# fixed search depths, a match of GAMES games (GAMES/2 pairs from the
# copenhagen opening suite, each opening once with either side) per depth,
# under OpenTafl's own Copenhagen rules, with every game kept.
#
#   OPENTAFL_ENGINE=/path/to/opentafl-engine scripts/opentafl-match.sh
#
# Environment:
#   OPENTAFL_ENGINE  required: the command line that runs OpenTafl's engine
#                    (OpenTafl --engine) built with the fixed-depth change
#                    the README's "Strength against OpenTafl" describes: it
#                    reads the depth from OPENTAFL_DEPTH
#   DEPTHS           the depths to play, default "3 4"
#   GAMES            games per depth (even), default 40
#   NET              taflab's network, default networks/copenhagen.safetensors
#   PLANES           the embedded rule set whose input planes the network is
#                    shown, default copenhagen-classic (the shipped network
#                    learnt from people's games under it, and its file says
#                    so; OpenTafl's Copenhagen differs from it in one
#                    switch); "" for the rule set the network's file names,
#                    else OpenTafl's
#   PLAYOUTS         taflab's playouts a move, default 1000 (under a second
#                    a move on one core with the shipped network; the README
#                    has the measured time)
#   OUT              where each depth's match folder goes, default
#                    docs/opentafl-match (OUT/depth-N: match.json, match.md,
#                    games.csv)
#   PAIRS_AT_ONCE    game pairs in play at once, default 1 (2 keeps both
#                    cores of a 2-core machine busy while one game of a pair
#                    waits for the other)
#
# A depth whose folder holds an unfinished match (OUT/depth-N/pairs.jsonl,
# left by an interrupted run) is carried on with "eval match -resume": the
# games it finished count and are not played again, and the games in play
# go on from their moves (OUT/depth-N/in-play.json), so a long match (depth
# 4 takes hours) can be played over several sittings.
#
# Each pair in play has two games at once, each with its own OpenTafl
# process; taflab's searches of a pair's games share one goroutine, so one
# core.
# Both players search to a fixed size, taflab to PLAYOUTS and OpenTafl to a
# depth, so the games do not depend on the machine's load; a game OpenTafl
# has not answered in LIMIT_MS (default 600000) is its loss by time, and an
# OpenTafl crash its loss by crash (match.md lists them).
set -euo pipefail
cd "$(dirname "$0")/.."

: "${OPENTAFL_ENGINE:?set OPENTAFL_ENGINE to the command that runs OpenTafl --engine (fixed-depth build)}"
DEPTHS=${DEPTHS:-3 4}
GAMES=${GAMES:-40}
NET=${NET:-networks/copenhagen.safetensors}
PLANES=${PLANES-copenhagen-classic}
PLAYOUTS=${PLAYOUTS:-1000}
OUT=${OUT:-docs/opentafl-match}
LIMIT_MS=${LIMIT_MS:-600000}
PAIRS_AT_ONCE=${PAIRS_AT_ONCE:-1}
# OpenTafl's Copenhagen, as its RulesSerializer writes it: OpenTafl referees
# by these rules, so taflab plays by them too (-variant otr:).
RULES='dim:11 name:Copenhagen atkf:y surf:y efe:y tfr:w sw:s start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/'

go build -o "${TMPDIR:-/tmp}/taflab-eval.$$" ./cmd/eval
trap 'rm -f "${TMPDIR:-/tmp}/taflab-eval.$$"' EXIT
for depth in $DEPTHS; do
	echo "== OpenTafl at depth $depth: $GAMES games against $NET at $PLAYOUTS playouts"
	resume=()
	if [ -f "$OUT/depth-$depth/pairs.jsonl" ]; then
		resume=(-resume)
	fi
	# -elo0 0 -elo1 1 with error rates of 1e-12: a test that never stops
	# the match early, so every depth plays all its games.
	"${TMPDIR:-/tmp}/taflab-eval.$$" match -variant "otr:$RULES" \
		-openings configs/openings/copenhagen.txt \
		-a "net=$NET,playouts=$PLAYOUTS${PLANES:+,planes=$PLANES}" \
		-b "otep:cmd=\"env OPENTAFL_DEPTH=$depth $OPENTAFL_ENGINE\",clock=off,limit=$LIMIT_MS,name=opentafl-depth-$depth" \
		-max-games "$GAMES" -elo0 0 -elo1 1 -alpha 1e-12 -beta 1e-12 \
		-workers "$PAIRS_AT_ONCE" "${resume[@]}" -out "$OUT/depth-$depth"
done
