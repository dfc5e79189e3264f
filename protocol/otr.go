package protocol

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"taflab/internal/errctx"
	"taflab/rules"
)

// An OpenTafl rules string (OTR) is space-separated key:value entries,
// "dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:/3ttttt3/.../"
// (opentafl-notation-spec.txt, section 3, and RulesSerializer.java for the
// defaults and the keys the spec's text leaves out: name, spd, the *re
// keys, ks's letters s, c, m and w, starti). CompileRules turns one into a
// rules.Definition, with the OpenTafl default for every key left out, and
// refuses, naming the key, every value taflab cannot play.
//
// The mapping, as OpenTafl's sources define the keys (jslater89/OpenTafl:
// opentafl-notation-spec.txt, RulesSerializer.java's defaults and readers,
// Rules.java, GameState.java's checkVictory):
//
//	surf  "surrounding fatal", default y: the attackers win when no
//	      defender can reach the edge (GameState: isSideEncircled of the
//	      defenders) -> Encirclement
//	efe   "edge fort escape", default n -> EdgeFort
//	sw    n none (default); s strong: a corner may close the row ->
//	      ShieldwallBoth (OpenTafl sweeps for the side that moved, either
//	      side); w weak (corners may not close it) is refused
//	tfr   threefold repetition, default d. The spec: "if "w", the player
//	      forced to respond wins. If "l", the player forced to respond
//	      loses. If "d", the game is a draw (default). If "i", threefold
//	      repetitions are ignored." GameState judges after the turn has
//	      passed, so THIRD_REPETITION_WINS gives the win to the side now
//	      to move: w -> RepetitionMoverLoses (either side), d ->
//	      RepetitionDraw, i -> RepetitionNone, l (the repeater wins) refused
//	ks    y or s strong (default), m middleweight: "all of his adjacent
//	      spaces must be hostile", so three attackers on the edge and two
//	      beside a corner -> KingCapturedOnEdge; w or n weak and c (strong
//	      only at the throne) refused
//	ka    y armed (default); n, h and a refused
//	cor, cen  "default" or exactly the corners, the centre
//	corh, cenh, cenhe, cors, cens, cenp, cenre: the lists taflab's rules
//	      need (pieceRules); the others change nothing on taflab's boards
//	atkf  y (default): the attackers move first; start is read rank 1
//	      first, starti the other way up
//
// and every rule set compiled from an OpenTafl rules string is refereed as
// OpenTafl referees it (rules.RefereeOpenTafl, whose comment lists each
// behaviour and the OpenTafl method it comes from): its shieldwall scan
// (BoardImpl.detectShieldwallPositionsForSide and
// GameState.checkShieldwallPositionForCaptures), its end checks after every
// move in the order of GameState.checkVictoryInternal (no attackers left,
// repetition, king escaped or taken, no defender beside an empty square,
// edge fort, encirclement), and its edge fort (the defenders' shieldwall
// shape with a free king, then GameState.checkEdgeFortEscape). Repetition
// maps as above unchanged: OpenTafl's position hash holds the side to move
// (GameState.zobristHash, Game.ZOBRIST_TURN) and counts the start.
//
// What OpenTafl's keys cannot say about taflab's own rule sets is written
// in keys of taflab's, which OpenTafl ignores (it reads only the keys it
// knows) and CompileRules reads:
//
//	x-swside:a   only the attackers sweep shieldwalls (with sw:s)
//	x-swwins:y   the first shieldwall sweep wins the game
//	x-tfr:d      only the defenders lose by repetition (with tfr:w)
//	x-kedge:y    the king is captured on the edge: ks:m, as taflab wrote it before
//	x-np:N       N moves without a capture draw the game
//	x-referee:taflab  taflab's referee (../shared/spec/variants.md), not
//	             OpenTafl's: every rules string RulesString writes for a
//	             taflab-refereed rule set carries it
//
// so that every rule set taflab plays has a rules string (RulesString)
// that compiles back to it.

// RulesError is a rules string taflab cannot play: the key at fault and why.
type RulesError struct {
	Key string // the OTR key, such as "sw"; "" for the string as a whole
	Err error
}

func (e *RulesError) Error() string { return "protocol: " + e.Message() }

// Message is the error's text without the package's name: "rules: " and
// its Problem.
func (e *RulesError) Message() string { return "rules: " + e.Problem() }

// Problem says what taflab cannot play, naming the key: "key sw: ...", or
// for the string as a whole what is wrong with it.
func (e *RulesError) Problem() string {
	if e.Key == "" {
		return e.Err.Error()
	}
	return "key " + e.Key + ": " + e.Err.Error()
}

func (e *RulesError) Unwrap() error { return e.Err }

// pieceLetters are the piece symbols of OTR piece-type lists.
const pieceLetters = "tcnkTCNK"

// pieceRule says which pieces of a piece-type list matter to taflab's rules
// (t soldier attackers, T soldier defenders, K the king) and which of them
// must be in the list (need) or out of it (refuse) for the rules taflab
// plays; the other letters are only checked to be piece symbols.
type pieceRule struct {
	need, refuse string
	why          string
}

var pieceRules = map[string]pieceRule{
	// Corners are hostile to every soldier (spec: "a corner is hostile to
	// both sides").
	"corh": {need: "tT", why: "corners are hostile to both sides' soldiers"},
	// The occupied throne is hostile to attackers only.
	"cenh": {need: "t", refuse: "T", why: "the occupied throne is hostile to attackers only"},
	// The empty throne is hostile to both sides, and counts against the
	// king.
	"cenhe": {need: "tTK", why: "the empty throne is hostile to every piece"},
	// Any piece may pass over the empty throne.
	"cenp": {need: "tTK", why: "every piece may pass over the empty throne"},
	// Only the king may stop on a corner or the throne, and he may return
	// to the throne.
	"cors":  {need: "K", refuse: "tT", why: "only the king may stop on a corner"},
	"cens":  {need: "K", refuse: "tT", why: "only the king may stop on the throne"},
	"cenre": {need: "K", why: "the king may return to the throne"},
	// A corner ends every line, so no piece passes over one, and a king
	// on a corner has won: these lists change nothing.
	"corp": {}, "corre": {},
	// Fortresses: taflab's boards have none (afor and dfor must be empty),
	// so their lists change nothing.
	"aforh": {}, "dforh": {}, "aforp": {}, "dforp": {}, "afors": {}, "dfors": {}, "aforre": {}, "dforre": {},
}

// CompileRules reads an OTR rules string into a rule-set definition
// (validated: rules.Compile accepts it). It refuses, with a *RulesError
// naming the key, an unknown key, a key given twice, a malformed value, and
// every value taflab cannot play: edge escape, an unarmed or weak king,
// jumps, berserk, speed limits, fortresses, moved corners or throne, weak
// or unflanked shieldwalls, a win by repetition for the repeating side, and
// any hostility or movement list other than taflab's.
func CompileRules(otr string) (rules.Definition, error) {
	fail := func(key, format string, args ...any) (rules.Definition, error) {
		return rules.Definition{}, &RulesError{Key: key, Err: fmt.Errorf(format, args...)}
	}
	entries := strings.Fields(otr)
	if len(entries) == 0 {
		return fail("", "empty: want dim:N ... start:/.../")
	}
	kv := map[string]string{}
	var order []string
	for _, e := range entries {
		key, value, ok := strings.Cut(e, ":")
		if !ok {
			return fail("", "%q is not key:value", clip(e))
		}
		if _, dup := kv[key]; dup {
			return fail(key, "given twice")
		}
		kv[key] = value
		order = append(order, key)
	}
	known := []string{"dim", "name", "esc", "surf", "atkf", "tfr", "ka", "ks", "kj", "nj", "cj", "cor", "cen",
		"afor", "dfor", "spd", "sw", "swf", "efe", "ber", "start", "starti",
		"x-swside", "x-swwins", "x-tfr", "x-kedge", "x-np", "x-referee"}
	for _, key := range order {
		if _, ok := pieceRules[key]; !ok && !slices.Contains(known, key) {
			return fail(key, "unknown key: taflab cannot tell whether it can play it")
		}
	}
	get := func(key, def string) string {
		if v, ok := kv[key]; ok {
			return v
		}
		return def
	}
	yesNo := func(key, def string) (bool, error) {
		switch v := get(key, def); v {
		case "y":
			return true, nil
		case "n":
			return false, nil
		default:
			return false, &RulesError{Key: key, Err: fmt.Errorf("%q: want y or n", clip(v))}
		}
	}
	only := func(key, def, want, why string) error {
		if v := get(key, def); v != want {
			return &RulesError{Key: key, Err: fmt.Errorf("%q: taflab plays only %s:%s (%s)", clip(v), key, want, why)}
		}
		return nil
	}

	// Size and start position first: the space lists need the size.
	dimText, ok := kv["dim"]
	if !ok {
		return fail("dim", "missing: every rules string starts with dim:N")
	}
	size, err := strconv.Atoi(dimText)
	if err != nil || size < rules.MinSize || size > rules.MaxSize || size%2 == 0 {
		return fail("dim", "%q: taflab plays odd sizes from %d to %d", clip(dimText), rules.MinSize, rules.MaxSize)
	}
	attackersFirst, err := yesNo("atkf", "y")
	if err != nil {
		return rules.Definition{}, err
	}
	first := rules.Attackers
	if !attackersFirst {
		first = rules.Defenders
	}
	var start rules.Position
	startKey := "start"
	startText, hasStart := kv["start"]
	if invText, hasInv := kv["starti"]; hasInv {
		if hasStart {
			return fail("starti", "given with start: want one of them")
		}
		startKey, startText = "starti", invText
		start, err = ParseBoardInverted(startText, first)
	} else if !hasStart {
		return fail("start", "missing: every rules string ends with start:/.../")
	} else {
		start, err = ParseBoard(startText, first)
	}
	if err != nil {
		return fail(startKey, "%s", errctx.Message(err))
	}
	if int(start.Size) != size {
		return fail(startKey, "%d rows, but dim:%d", start.Size, size)
	}

	def := rules.Definition{Name: ruleSetName(get("name", "")), Size: size, Start: start.String()}
	for _, c := range []struct{ key, def, want, why string }{
		{"esc", "c", "c", "the king escapes to a corner"},
		{"ka", "y", "y", "the king is armed"},
		{"kj", "n", "n", "no piece jumps"},
		{"swf", "y", "y", "only a move onto the end of a row sweeps it"},
		{"ber", "n", "n", "no berserk moves"},
		{"spd", "-1", "-1", "pieces move any distance"},
		{"afor", "", "", "no fortresses"},
		{"dfor", "", "", "no fortresses"},
	} {
		if err := only(c.key, c.def, c.want, c.why); err != nil {
			return rules.Definition{}, err
		}
	}
	middleweight := false
	switch ks := get("ks", "s"); ks {
	case "s", "y":
	case "m":
		// Captured wherever every side of him is hostile: on the edge by
		// three attackers, beside a corner by two, which needs the corner
		// hostile to him.
		if corh, ok := kv["corh"]; ok && !strings.ContainsRune(corh, 'K') {
			return fail("ks", "\"m\" with corh:%s: taflab plays the middleweight king only with corners hostile to him (K in corh)", clip(corh))
		}
		middleweight = true
	default:
		return fail("ks", "%q: taflab plays a strong king, ks:s (captured on four sides), or a middleweight one, ks:m (on every side, so on the edge too)", clip(ks))
	}
	for _, key := range []string{"nj", "cj"} {
		// No knights or commanders stand on a board taflab plays (the start
		// position refuses them), so any jump mode will do.
		if v, ok := kv[key]; ok && v != "n" && v != "r" && v != "j" && v != "c" {
			return fail(key, "%q: want n, r, j or c", clip(v))
		}
	}
	if err := checkSpaces(kv, "cor", size, cornerSquares(size), "the four corners"); err != nil {
		return rules.Definition{}, err
	}
	centre := rules.NewSquare(size/2, size/2)
	if err := checkSpaces(kv, "cen", size, []rules.Square{centre}, "the centre square "+centre.String()); err != nil {
		return rules.Definition{}, err
	}
	for key, r := range pieceRules {
		v, ok := kv[key]
		if !ok {
			continue // OpenTafl's defaults are taflab's rules
		}
		for i := 0; i < len(v); i++ {
			if !strings.ContainsRune(pieceLetters, rune(v[i])) {
				return fail(key, "%q: %q is not a piece symbol (%s)", clip(v), v[i], pieceLetters)
			}
		}
		for _, c := range r.need {
			if !strings.ContainsRune(v, c) {
				return fail(key, "%q: taflab plays only with %c in it (%s)", clip(v), c, r.why)
			}
		}
		for _, c := range r.refuse {
			if strings.ContainsRune(v, c) {
				return fail(key, "%q: taflab plays only without %c in it (%s)", clip(v), c, r.why)
			}
		}
	}

	if def.Encirclement, err = yesNo("surf", "y"); err != nil {
		return rules.Definition{}, err
	}
	if def.EdgeFort, err = yesNo("efe", "n"); err != nil {
		return rules.Definition{}, err
	}
	switch v := get("sw", "n"); v {
	case "n":
		def.Shieldwall = rules.ShieldwallNone
	case "s":
		def.Shieldwall = rules.ShieldwallBoth
	case "w":
		return fail("sw", "\"w\": weak shieldwalls (corners may not close a row): taflab plays sw:n or sw:s")
	default:
		return fail("sw", "%q: want n, w or s", clip(v))
	}
	switch v := get("tfr", "d"); v {
	case "w":
		// "The player forced to respond wins": whoever moves into the
		// third occurrence loses.
		def.Repetition = rules.RepetitionMoverLoses
	case "i":
		def.Repetition = rules.RepetitionNone
	case "d":
		def.Repetition = rules.RepetitionDraw
	case "l":
		return fail("tfr", "\"l\": the repeating side wins: taflab plays tfr:w (the repeating side loses), tfr:d (a draw) or tfr:i (ignored)")
	default:
		return fail("tfr", "%q: want w, l, d or i", clip(v))
	}

	// taflab's own keys.
	switch v := get("x-swside", "b"); v {
	case "b":
	case "a":
		if def.Shieldwall == rules.ShieldwallNone {
			return fail("x-swside", "\"a\" needs sw:s")
		}
		def.Shieldwall = rules.ShieldwallAttackers
	default:
		return fail("x-swside", "%q: want a (attackers only) or b (both)", clip(v))
	}
	if def.ShieldwallWins, err = yesNo("x-swwins", "n"); err != nil {
		return rules.Definition{}, err
	}
	switch v := get("x-tfr", "m"); v {
	case "m":
	case "d":
		if def.Repetition != rules.RepetitionMoverLoses {
			return fail("x-tfr", "\"d\" needs tfr:w")
		}
		def.Repetition = rules.RepetitionDefendersLose
	default:
		return fail("x-tfr", "%q: want d (only the defenders lose) or m (the mover loses)", clip(v))
	}
	if def.KingCapturedOnEdge, err = yesNo("x-kedge", "n"); err != nil {
		return rules.Definition{}, err
	}
	if middleweight {
		if v, ok := kv["x-kedge"]; ok && v != "y" {
			return fail("x-kedge", "%q contradicts ks:m (the king is captured on the edge)", clip(v))
		}
		def.KingCapturedOnEdge = true
	}
	switch v := get("x-referee", "opentafl"); v {
	case "opentafl":
		def.Referee = rules.RefereeOpenTafl
	case "taflab":
		def.Referee = rules.RefereeTaflab
	default:
		return fail("x-referee", "%q: want taflab or opentafl", clip(v))
	}
	if v, ok := kv["x-np"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fail("x-np", "%q: want 0 (never) or a number of moves", clip(v))
		}
		def.NoProgressMoves = n
	}
	if err := def.Validate(); err != nil {
		var fe *rules.FieldError
		key := ""
		if errors.As(err, &fe) {
			key = map[string]string{"shieldwall_wins": "x-swwins", "start": startKey, "size": "dim", "no_progress_moves": "x-np"}[fe.Key]
		}
		return fail(key, "%v", err)
	}
	return def, nil
}

// checkSpaces checks a space-list key (cor, cen): "default", or exactly the
// squares taflab's rules put there.
func checkSpaces(kv map[string]string, key string, size int, want []rules.Square, what string) error {
	v, ok := kv[key]
	if !ok || v == "default" {
		return nil
	}
	var got []rules.Square
	for _, name := range strings.Split(v, ",") {
		if name == "" {
			continue
		}
		s, err := rules.ParseSquare(name)
		if err != nil || s.File() >= size || s.Rank() >= size {
			return &RulesError{Key: key, Err: fmt.Errorf("%q: %q is not a square of the %dx%d board", clip(v), clip(name), size, size)}
		}
		if !slices.Contains(got, s) {
			got = append(got, s)
		}
	}
	slices.Sort(got)
	w := slices.Clone(want)
	slices.Sort(w)
	if !slices.Equal(got, w) {
		return &RulesError{Key: key, Err: fmt.Errorf("%q: taflab plays only with %s", clip(v), what)}
	}
	return nil
}

func cornerSquares(size int) []rules.Square {
	l := size - 1
	return []rules.Square{rules.NewSquare(0, 0), rules.NewSquare(l, 0), rules.NewSquare(0, l), rules.NewSquare(l, l)}
}

// ruleSetName turns an OTR name ("Copenhagen", "Fetlar_Hnefatafl") into a
// rule-set name taflab accepts: lower case, ' ' as '-', other
// characters dropped; "opentafl" when nothing is left.
func ruleSetName(name string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(name) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_':
			b.WriteRune(c)
		case c == ' ':
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "opentafl"
	}
	return b.String()
}

// RulesString writes a rule set as an OTR rules string that CompileRules
// reads back into the same definition: OpenTafl's keys for what they can
// say, taflab's x- keys for the rest (which OpenTafl ignores, so that it
// plays the nearest of its rules). The start position is written rank 1
// first (start:), and atkf says who moves first.
func RulesString(def rules.Definition) (string, error) {
	if err := def.Validate(); err != nil {
		return "", errctx.Key("protocol", "rule set "+def.Name, err)
	}
	start, err := rules.ParsePosition(def.Start)
	if err != nil {
		return "", errctx.Key("protocol", "rule set "+def.Name, err)
	}
	yn := func(b bool) string {
		if b {
			return "y"
		}
		return "n"
	}
	parts := []string{"dim:" + strconv.Itoa(def.Size), "name:" + def.Name,
		"atkf:" + yn(start.ToMove == rules.Attackers), "surf:" + yn(def.Encirclement), "efe:" + yn(def.EdgeFort)}
	switch def.Repetition {
	case rules.RepetitionNone:
		parts = append(parts, "tfr:i")
	case rules.RepetitionMoverLoses:
		parts = append(parts, "tfr:w")
	case rules.RepetitionDefendersLose:
		parts = append(parts, "tfr:w", "x-tfr:d")
	case rules.RepetitionDraw:
		parts = append(parts, "tfr:d")
	}
	switch def.Shieldwall {
	case rules.ShieldwallNone:
		parts = append(parts, "sw:n")
	case rules.ShieldwallBoth:
		parts = append(parts, "sw:s")
	case rules.ShieldwallAttackers:
		parts = append(parts, "sw:s", "x-swside:a")
	}
	if def.ShieldwallWins {
		parts = append(parts, "x-swwins:y")
	}
	if def.KingCapturedOnEdge {
		parts = append(parts, "ks:m")
	}
	if def.NoProgressMoves > 0 {
		parts = append(parts, "x-np:"+strconv.Itoa(def.NoProgressMoves))
	}
	if def.Referee == rules.RefereeTaflab {
		parts = append(parts, "x-referee:taflab")
	}
	parts = append(parts, "start:"+FormatBoard(start))
	return strings.Join(parts, " "), nil
}
