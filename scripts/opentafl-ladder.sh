#!/bin/bash
# opentafl-ladder.sh: where taflab breaks even with OpenTafl's AI as its
# users run it (at its own settings: the thinktime of its settings.ini, its
# continuation and horizon searches on). taflab plays a rung of PAIRS game
# pairs from random openings at each of LADDER's playouts a move, climbing
# until it scores at least half; then TOP_GAMES games at TOP playouts. Every
# game is kept.
#
#   OPENTAFL_ENGINE=/path/to/your/opentafl-engine scripts/opentafl-ladder.sh
#
# Environment:
#   OPENTAFL_ENGINE  required: the command line that runs your own OpenTafl
#                    as an engine, unchanged (java -jar OpenTafl.jar
#                    --engine, in OpenTafl's folder, whose settings.ini it
#                    reads: set thinktime there, 5 for the published figures)
#   NET              taflab's network, default networks/copenhagen.safetensors
#   PLANES           the embedded rule set whose input planes the network is
#                    shown; "" (default) for those its file names, or, for
#                    a file that names none, OpenTafl's Copenhagen's own,
#                    which no taflab rule set has: give a loop generation
#                    its run's (PLANES=copenhagen for configs/strong.toml)
#   LADDER           taflab's playouts a move, rung by rung, default
#                    "1 4 16 64"; "" for none (the last match alone)
#   PAIRS            game pairs a rung, default 5 (each random opening once
#                    with either side)
#   PLIES            random moves of each opening, default 6
#   TOP              the playouts of the last match, default 1000 (0: none)
#   TOP_GAMES        its games, default 10
#   SEED             the openings' seed, default 1 (the same openings on
#                    every rung)
#   OUT              where the match folders go (OUT/p-N), default
#                    runs/opentafl-ladder
#   WORKERS          game pairs in play at once, default 1 (a pair's two
#                    games run side by side, each with its own OpenTafl)
#   LIMIT_MS         OpenTafl's allowance a move (a move past it loses the
#                    game), default 120000: its horizon search is not
#                    bounded by its thinktime
#
# A rung whose folder holds an unfinished match (pairs.jsonl, left by an
# interrupted run) is carried on with "eval match -resume", its games in
# play from their moves. Under OpenTafl's own Copenhagen rules (taflab
# referees them as OpenTafl does). OpenTafl thinks by the clock, so its moves
# depend on the machine and its load: say which with the results.
set -euo pipefail
cd "$(dirname "$0")/.."

: "${OPENTAFL_ENGINE:?set OPENTAFL_ENGINE to the command that runs your OpenTafl as an engine (OpenTafl.jar --engine)}"
NET=${NET:-networks/copenhagen.safetensors}
PLANES=${PLANES-}
LADDER=${LADDER-1 4 16 64}
PAIRS=${PAIRS:-5}
PLIES=${PLIES:-6}
TOP=${TOP:-1000}
TOP_GAMES=${TOP_GAMES:-10}
SEED=${SEED:-1}
OUT=${OUT:-runs/opentafl-ladder}
LIMIT_MS=${LIMIT_MS:-120000}
WORKERS=${WORKERS:-1}
RULES='dim:11 name:Copenhagen atkf:y surf:y efe:y tfr:w sw:s start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/'

bin="${TMPDIR:-/tmp}/taflab-eval.$$"
go build -o "$bin" ./cmd/eval
trap 'rm -f "$bin"' EXIT

# play PLAYOUTS GAMES: one match into OUT/p-PLAYOUTS; prints taflab's score
# as "points games".
play() {
	local dir="$OUT/p-$1" resume=()
	if [ -f "$dir/pairs.jsonl" ]; then
		resume=(-resume)
	fi
	if [ ! -f "$dir/match.json" ] || [ ${#resume[@]} -gt 0 ]; then
		# -elo0 0 -elo1 1 with error rates of 1e-12: a test that never
		# stops early, so every game of the rung is played.
		"$bin" match -variant "otr:$RULES" -openings random -opening-plies "$PLIES" -seed "$SEED" \
			-a "net=$NET,playouts=$1${PLANES:+,planes=$PLANES}" \
			-b "otep:cmd=$OPENTAFL_ENGINE,clock=off,limit=$LIMIT_MS,name=opentafl" \
			-max-games "$2" -elo0 0 -elo1 1 -alpha 1e-12 -beta 1e-12 -workers "$WORKERS" "${resume[@]}" -out "$dir" >&2
	fi
	# The score from match.json's report: A's wins and draws.
	python3 - "$dir/match.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["report"]
w = r["AsAttacker"]["Wins"] + r["AsDefender"]["Wins"]
d = r["AsAttacker"]["Draws"] + r["AsDefender"]["Draws"]
print(w + d / 2, r["Games"])
EOF
}

for p in $LADDER; do
	read -r points games < <(play "$p" $((2 * PAIRS)))
	echo "taflab at $p playouts: $points of $games"
	if python3 -c "import sys; sys.exit(0 if 2*float('$points') >= float('$games') else 1)"; then
		echo "taflab breaks even at $p playouts a move"
		break
	fi
done
if [ "$TOP" -gt 0 ]; then
	read -r points games < <(play "$TOP" "$TOP_GAMES")
	echo "taflab at $TOP playouts: $points of $games"
fi
