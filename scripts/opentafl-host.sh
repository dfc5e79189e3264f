#!/bin/bash
# opentafl-host.sh: OpenTafl hosts one game of Copenhagen hnefatafl between
# taflab's engine (cmd/engine -protocol otep) and another OTEP engine, on a
# private OpenTafl server, and prints one summary line.
#
# Environment (all required unless a default is given):
#   OPENTAFL_CP      OpenTafl's Java classpath: your own copy's OpenTafl.jar
#   TAFLAB_ENGINE    the command line of taflab's engine, split on blanks (no
#                    quoting), absolute paths: e.g.
#                    "/tmp/engine -protocol otep -net builtin -movetime 500"
#   OPPONENT_ENGINE  the command line of the other side's engine, likewise
#                    (OpenTafl's engine wrapper, or taflab's engine again)
#   SIDE             attackers|defenders: taflab's side
#   WORKDIR          a scratch folder: the script and OpenTafl's server and
#                    clients write only there (the script removes and
#                    recreates its own files in it); the engines run in
#                    WORKDIR/*/engines/run, and what they write elsewhere is
#                    theirs (OpenTafl's stock engine wrapper changes to its
#                    own folder and writes log/ there)
#   CLOCK            OpenTafl's clock, MAIN+OVERTIME/COUNT+INCREMENT in ms;
#                    default 300000+20000/3+0 (below)
#   MATCH_TIMEOUT    seconds for everything; default 1200
#   OPENTAFL_JAVA    java; default java
#   OPENTAFL_JAVA_OPTS  options of the server's and the clients' JVMs
#
# How: OpenTafl's server listens on port 11541 of every interface, so the
# server and both headless clients run inside `unshare --net --pid`: a
# network namespace with loopback only (nothing outside can reach the
# server) and a PID namespace whose processes all die with it (nothing is
# left behind, also after the timeout). The client that creates the game
# runs taflab's engine on SIDE; the one that joins runs the opponent, plays
# one game, saves it and exits, which ends the run. Each engine runs inside a
# small wrapper that records every OTEP line both ways, with milliseconds
# since the engine started, in WORKDIR/taflab.otep and WORKDIR/opponent.otep
# ("> " host to engine, "< " engine to host); engines' stderr goes to
# WORKDIR/*.stderr, OpenTafl's output to WORKDIR/{server,taflab-client,
# opponent-client}.out.
#
# Clock: 5 minutes main time and 3 overtime periods of 20 s. Both engines
# here cap their own time far below it (taflab with -movetime, OpenTafl's
# engine with its settings' thinktime, a second), so the clock only catches
# an engine that hangs or ignores its budget; a move made within an
# overtime period leaves the period whole, so a long game cannot lose on
# time while every move takes under 20 s, yet a hung engine loses within
# 5 min + 60 s, well within MATCH_TIMEOUT. On a loaded machine the server
# counts network and JVM delays against the clock too: hence 20 s, not 5.
#
# Output: the last line is
#   result: winner=attackers|defenders|draw|none
#           reason=rules|timeout|taflab-client-left|opponent-client-left|engine-exited|unknown
#           exited=none|taflab|opponent|both
#           plies=N taflab=won|lost|drew|none taflab_errors=N taflab_differs=N
#           taflab_moves=N taflab_max_move_ms=N taflab_max_search_ms=N clock_lines=N
#           seconds=N
# (one line). reason=rules: OpenTafl's own rules judged the final position
# over (the saved game's result tag) and the server's verdict agrees;
# timeout: the server ended the game with no rule ending (a side's clock
# ran out, or an engine resigned or hung); taflab-client-left and
# opponent-client-left: that client left before the verdict (it crashed:
# OpenTafl's client exits when its engine's move line does not parse);
# engine-exited: no verdict, because an engine exited before the game
# ended (OpenTafl's client does not notice; the run stops then). exited:
# the engines that exited before the host's finish. taflab_max_move_ms:
# the longest time from a `play` to taflab's `move` in the transcript;
# taflab_max_search_ms: the longest search its status lines report.
# Exit status: 0 when the game ended with a verdict, 1 when it did not (no
# verdict, the timeout, a client that could not start), 2 on bad settings.
set -u

# The whole script is in functions, read before anything runs: a run is
# not disturbed by an edit of this file.

# inside runs in the namespaces, as their first process (PID 1):
# everything started here dies when it exits.
inside() {
	cd "$WORKDIR" || exit 1
	ip link set lo up || { echo "opentafl-host: ip link set lo up failed" >&2; exit 1; }
	M=com.manywords.softworks.tafl.OpenTafl
	read -ra jopts <<<"$OPENTAFL_JAVA_OPTS"
	log() { printf '%s opentafl-host: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
	waitfor() { # waitfor SECONDS PID CMD...: until CMD succeeds, PID dies or time runs out
		local end=$((SECONDS + $1)) pid=$2
		shift 2
		while ((SECONDS < end)); do
			"$@" && return 0
			kill -0 "$pid" 2>/dev/null || return 1
			sleep 0.5
		done
		return 1
	}

	(cd server && exec "$OPENTAFL_JAVA" "${jopts[@]}" -cp "$OPENTAFL_CP" $M --server --threads 2 >../server.out 2>&1) &
	server=$!
	if ! waitfor 120 $server bash -c 'ss -Hltn "sport = :11541" | grep -q .'; then
		log "the server did not start listening (see server.out)"
		exit 1
	fi
	log "server listening"

	creator_side=$SIDE
	(cd taflab-client && exec "$OPENTAFL_JAVA" "${jopts[@]}" -cp "$OPENTAFL_CP" $M --headless --server 127.0.0.1 \
		--username taflab --password taflab-pw --engine engines/engine.ini \
		--create --rules 3 --clock "$CLOCK" --side "$creator_side" --verbose >../taflab-client.out 2>&1) &
	creator=$!
	if ! waitfor 120 $creator grep -qs 'to IN_PREGAME' taflab-client.out; then
		log "taflab's client did not create a game (see taflab-client.out)"
		exit 1
	fi
	log "game created, taflab on the $SIDE"

	(cd opponent-client && exec "$OPENTAFL_JAVA" "${jopts[@]}" -cp "$OPENTAFL_CP" $M --headless --server 127.0.0.1 \
		--username opponent --password opponent-pw --engine engines/engine.ini \
		--join --opponent taflab --verbose >../opponent-client.out 2>&1) &
	joiner=$!
	# The joiner exits after its game; one that finds no game may not. An
	# engine that exits mid-game (OpenTafl's client does not notice) would
	# only lose on time, minutes later: stop then.
	while kill -0 $joiner 2>/dev/null; do
		if grep -qs 'Opponent taflab not found' opponent-client.out; then
			log "the opponent's client found no game (see opponent-client.out)"
			exit 1
		fi
		for who in taflab opponent; do
			if grep -qs '^[0-9.]* engine exited' $who.otep && ! grep -qs '^[0-9.]* > finish' $who.otep; then
				log "the $who engine exited before the game ended (see $who.otep, $who.stderr)"
				exit 1
			fi
		done
		sleep 1
	done
	wait $joiner
	status=$?
	log "the opponent's client exited with status $status"
	# The creator saves its copy of the game and its engine gets finish
	# and goodbye: wait a little for both.
	end=$((SECONDS + 15))
	while ((SECONDS < end)); do
		compgen -G 'taflab-client/saved-games/headless-ai/*.otg' >/dev/null && break
		kill -0 $creator 2>/dev/null || break
		sleep 0.5
	done
	sleep 1
	exit $status
}

# outside: settings, files, the run, the summary.
outside() {
	die() { echo "opentafl-host: $*" >&2; exit 2; }
	for v in OPENTAFL_CP TAFLAB_ENGINE OPPONENT_ENGINE SIDE WORKDIR; do
		[[ -n ${!v:-} ]] || die "$v is not set"
	done
	[[ $SIDE == attackers || $SIDE == defenders ]] || die "SIDE=$SIDE: want attackers or defenders"
	CLOCK=${CLOCK:-300000+20000/3+0}
	[[ $CLOCK =~ ^[0-9]+\+[0-9]+/[0-9]+\+[0-9]+$ ]] || die "CLOCK=$CLOCK: want MAIN+OVERTIME/COUNT+INCREMENT (ms)"
	MATCH_TIMEOUT=${MATCH_TIMEOUT:-1200}
	[[ $MATCH_TIMEOUT =~ ^[0-9]+$ && $MATCH_TIMEOUT -gt 0 ]] || die "MATCH_TIMEOUT=$MATCH_TIMEOUT: want seconds"
	OPENTAFL_JAVA=${OPENTAFL_JAVA:-java}
	# No perf data files in /tmp, a small heap, one GC thread: the server and
	# the clients are light, and the machine may be shared. The exports: on
	# Java 9 and later, logging in (PasswordHasher) fails without the first.
	OPENTAFL_JAVA_OPTS=${OPENTAFL_JAVA_OPTS:--XX:-UsePerfData -XX:+UseSerialGC -Xmx256m --add-exports java.xml/com.sun.org.apache.xerces.internal.impl.dv.util=ALL-UNNAMED --add-exports java.base/sun.net=ALL-UNNAMED}
	for c in unshare ip ss timeout "$OPENTAFL_JAVA"; do
		command -v "$c" >/dev/null || die "$c: not found"
	done
	read -ra taflab_cmd <<<"$TAFLAB_ENGINE"
	read -ra opponent_cmd <<<"$OPPONENT_ENGINE"
	((${#taflab_cmd[@]} > 0)) || die "TAFLAB_ENGINE is empty"
	((${#opponent_cmd[@]} > 0)) || die "OPPONENT_ENGINE is empty"
	mkdir -p "$WORKDIR" || die "cannot make WORKDIR $WORKDIR"
	WORKDIR=$(cd "$WORKDIR" && pwd -P) || die "cannot enter WORKDIR"
	cd "$WORKDIR" || die "cannot enter WORKDIR"
	rm -rf server taflab-client opponent-client tmp taflab.otep opponent.otep taflab.stderr opponent.stderr \
		server.out taflab-client.out opponent-client.out
	mkdir -p server taflab-client/engines/run opponent-client/engines/run tmp || die "cannot write in $WORKDIR"

	# write_engine WHO DIR CMD...: DIR/engines/engine.ini and its wrapper
	# DIR/engines/run/engine.sh, which runs CMD and records the OTEP lines.
	write_engine() {
		local who=$1 dir=$2
		shift 2
		local wrapper=$WORKDIR/$dir/engines/run/engine.sh
		{
			echo '#!/bin/bash'
			echo "# written by opentafl-host.sh: runs the $who engine, records its OTEP lines"
			printf 'cmd=('
			printf ' %q' "$@"
			printf ' )\n'
			printf 'log=%q err=%q fifo=%q\n' "$WORKDIR/$who.otep" "$WORKDIR/$who.stderr" "$WORKDIR/$dir/engines/run/stdin.fifo"
			printf 'export TMPDIR=%q\n' "$WORKDIR/tmp"
			cat <<-'EOF'
			t0=${EPOCHREALTIME/./}
			# stamp: now=seconds since the start, without a fork (a loaded machine).
			stamp() { local t=$(((${EPOCHREALTIME/./} - t0) / 1000)); printf -v now '%d.%03d' $((t / 1000)) $((t % 1000)); }
			rm -f "$fifo" && mkfifo "$fifo" || exit 1
			stamp; echo "$now started: ${cmd[*]}" >>"$log"
			# Engine to host: each line is logged, then passed on in one write.
			( "${cmd[@]}" <"$fifo" 2>>"$err"; s=$?; stamp; echo "$now engine exited with status $s" >>"$log" ) |
				while IFS= read -r l || [[ -n $l ]]; do
					stamp; printf '%s < %s\n' "$now" "$l" >>"$log"
					printf '%s\n' "$l"
				done &
			out=$!
			exec 4>"$fifo"
			# Host to engine.
			while IFS= read -r l || [[ -n $l ]]; do
				stamp; printf '%s > %s\n' "$now" "$l" >>"$log"
				printf '%s\n' "$l" >&4 || break
			done
			stamp; echo "$now host closed the engine's input" >>"$log"
			exec 4>&-
			wait $out
			EOF
		} >"$wrapper" || die "cannot write $wrapper"
		chmod +x "$wrapper"
		# OpenTafl's EngineSpec: directory is relative to <client>/engines and
		# is the engine's working folder; engines/<directory>/<filename> must
		# exist; arguments is required (split on single spaces).
		printf '[engine]\nname=%s\ndirectory=run\nfilename=engine.sh\ncommand=%s\narguments=%s\n' \
			"$who" "$wrapper" "$who" >"$WORKDIR/$dir/engines/engine.ini"
	}
	write_engine taflab taflab-client "${taflab_cmd[@]}"
	write_engine opponent opponent-client "${opponent_cmd[@]}"

	export OPENTAFL_CP SIDE WORKDIR CLOCK OPENTAFL_JAVA OPENTAFL_JAVA_OPTS
	start=$SECONDS
	echo "opentafl-host: taflab on the $SIDE, clock $CLOCK, timeout ${MATCH_TIMEOUT}s, in $WORKDIR" >&2
	# --kill-child: when unshare ends (the game is over, or timeout stops it,
	# or whoever runs this script kills its process group), the namespace's
	# first process is killed, and with it every process in the PID namespace.
	# --foreground keeps timeout in this script's process group; KILL, since
	# unshare waiting for its child does not end on TERM.
	timeout --foreground -s KILL "$MATCH_TIMEOUT" unshare --net --pid --fork --mount-proc --kill-child=SIGKILL \
		bash "${BASH_SOURCE[0]}" __inside
	run_status=$?
	seconds=$((SECONDS - start))
	case $run_status in
	0) ;;
	124 | 137) echo "opentafl-host: the run was stopped after ${MATCH_TIMEOUT}s" >&2 ;;
	*) echo "opentafl-host: the run ended with status $run_status" >&2 ;;
	esac

	# The summary, from the saved games, the clients' logs, the transcripts.
	latest() { compgen -G "$1" | sort | tail -n 1; }
	game=$(latest 'opponent-client/saved-games/headless-ai/*.otg')
	[[ -n $game ]] || game=$(latest 'taflab-client/saved-games/headless-ai/*.otg')
	result=none plies=0
	if [[ -n $game ]]; then
		result=$(sed -n 's/^\[result:\(.*\)\]$/\1/p' "$game" | head -n 1)
		# Moves: "1. d1-d3 Kf6-g6" lines after the tags, captures as "xf10";
		# lines in brackets are tags and clock comments.
		plies=$(sed '/^\[/d' "$game" | grep -oE '(^|[[:space:]])[A-Z]?[a-z][0-9]+-[a-z][0-9]+' | wc -l)
	fi
	victory=$(grep -ohE 'Client received: victory [A-Z]+' opponent-client.out taflab-client.out 2>/dev/null |
		head -n 1 | awk '{print $4}')
	# A client that left (crashed) before the verdict: the other client heard
	# "opponent-left" before "victory" (after the game, the joiner leaves too).
	left_before_victory() {
		awk '/Client received: victory/ { exit } /Client received: error opponent-left/ { found = 1; exit }
			END { exit !found }' "$1" 2>/dev/null
	}
	left=none
	if left_before_victory opponent-client.out; then
		left=taflab
	elif left_before_victory taflab-client.out; then
		left=opponent
	fi
	case $victory in
	ATTACKER) winner=attackers ;;
	DEFENDER) winner=defenders ;;
	DRAW) winner=draw ;;
	*) case $result in 1) winner=attackers ;; -1) winner=defenders ;; 0) winner=draw ;; *) winner=none ;; esac ;;
	esac
	case $result in 1) judged=attackers ;; -1) judged=defenders ;; 0) judged=draw ;; *) judged=none ;; esac
	t=taflab.otep
	[[ -f $t ]] || : >"$t"
	[[ -f opponent.otep ]] || : >opponent.otep
	exited=none
	for who in taflab opponent; do
		if grep -q '^[0-9.]* engine exited' $who.otep && ! grep -q '^[0-9.]* > finish' $who.otep; then
			case $exited in none) exited=$who ;; *) exited=both ;; esac
		fi
	done
	if [[ $winner == none ]]; then
		reason=unknown
		[[ $exited == none ]] || reason=engine-exited
	elif [[ $left != none ]]; then
		reason=$left-client-left
	elif [[ $judged == "$winner" ]]; then
		reason=rules
	elif [[ $judged == none ]]; then
		reason=timeout
	else
		reason=unknown
	fi
	case $winner in
	none) taflab=none ;; draw) taflab=drew ;; "$SIDE") taflab=won ;; *) taflab=lost ;;
	esac
	errors=$(grep -cE '^[0-9.]+ < error( |$)' "$t")
	differs=$(grep -cE '^[0-9.]+ < status .*differs' "$t")
	clocks=$(grep -cE '^[0-9.]+ > clock ' "$t")
	read -r moves max_move max_search < <(awk '
		$2 == ">" && $3 == "play" { t = $1 }
		$2 == "<" && $3 == "move" { n++; if (t != "") { d = ($1 - t) * 1000; if (d > m) m = d }; t = "" }
		$2 == "<" && $3 == "status" && $5 == "playouts" && $6 == "in" { if ($7 + 0 > s) s = $7 + 0 }
		END { printf "%d %d %d\n", n, m + 0.5, s }' "$t")
	echo "opentafl-host: game record ${game:-none}; transcripts $WORKDIR/taflab.otep, $WORKDIR/opponent.otep" >&2
	echo "result: winner=$winner reason=$reason exited=$exited plies=$plies taflab=$taflab taflab_errors=$errors taflab_differs=$differs" \
		"taflab_moves=$moves taflab_max_move_ms=$max_move taflab_max_search_ms=$max_search clock_lines=$clocks seconds=$seconds"
	[[ $winner != none ]] || exit 1
	exit 0
}

if [[ ${1:-} == __inside ]]; then
	inside
else
	outside
fi
exit
