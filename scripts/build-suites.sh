#!/usr/bin/env bash
# Builds the opening suites that ship in configs/openings/, as they were
# built (not part of CI; an hour or more on 2 cores). Each suite is built in
# two passes of eval suite: candidates from the human archive's games,
# measured by a reference player against itself, then the positions that
# passed measured again with more games (a position kept on a few games may
# have been lucky). The copenhagen suite's reference is a network, since the
# built-in searcher's balanced positions are won by the attackers nearly
# every time between networks; the other rule sets' is the built-in
# searcher at 800 playouts.
#
#   REF=net.safetensors scripts/build-suites.sh            # all four
#   REF=net.safetensors scripts/build-suites.sh copenhagen # one
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=${RECORDS:-archive:copenhagen}
REF=${REF:-networks/copenhagen.safetensors}
TMP=${TMP:-$(mktemp -d)}
go build -o "$TMP/eval" ./cmd/eval

# pass1 VARIANT PLAYER PLIES EVERY SIZE GAMES SEED: candidates from the
# prefixes of the human games the attackers won, into $TMP/VARIANT-SEED.txt.
pass1() {
	"$TMP/eval" suite -variant "$1" -records "$RECORDS" -winner attackers -plies "$3" -every "$4" -random 0 \
		-player "$2" -games "$6" -min 0.2 -max 0.8 -size "$5" -seed "$7" -out "$TMP/$1-$7.txt"
}

# pass2 VARIANT PLAYER GAMES SEED FILE...: the positions of the first pass
# measured again, into configs/openings/VARIANT.txt.
pass2() {
	local v=$1 player=$2 games=$3 seed=$4
	shift 4
	cat "$@" >"$TMP/$v-pass1.txt"
	"$TMP/eval" suite -variant "$v" -candidates "$TMP/$v-pass1.txt" -random 0 \
		-player "$player" -games "$games" -min 0.2 -max 0.8 -size 0 -seed "$seed" -out "configs/openings/$v.txt"
}

variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(copenhagen copenhagen-classic fetlar hnefatafl11)
for v in "${variants[@]}"; do
	case $v in
	copenhagen)
		ref="net=$REF,playouts=100"
		pass1 "$v" "$ref" 24-72 8 90 6 12
		pass2 "$v" "$ref" 12 13 "$TMP/$v-12.txt"
		;;
	*)
		ref=builtin:playouts=800
		pass1 "$v" "$ref" 40-120 6 200 8 1
		pass1 "$v" "$ref" 43-139 6 200 8 2
		pass2 "$v" "$ref" 16 3 "$TMP/$v-1.txt" "$TMP/$v-2.txt"
		;;
	esac
done
