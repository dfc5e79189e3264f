package protocol

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"taflab/internal/errctx"
	"taflab/rules"
)

// ParseBoard reads an OpenTafl position record, "/row/row/.../", whose first
// row is rank 1 (OpenTafl's y = 0 is rank 1: its square names count ranks
// from 1 at row 0), with the side to move given apart: OpenTafl's records
// do not say it. 't' is an attacker, 'T' a defender, 'K' the king, digits a
// run of empty squares. Berserk pieces (n, c, N, C) and an attackers' king
// (k) are refused: taflab plays none of them. The position must be one
// taflab can play (rules.ParsePosition's checks: one king, no soldier on the
// throne or a corner, an odd size from 7 to 11).
func ParseBoard(text string, toMove rules.Side) (rules.Position, error) {
	return parseBoard(text, toMove, true)
}

// ParseBoardInverted reads a position record written the other way up, its
// first row the last rank (the rules string's "starti" entry).
func ParseBoardInverted(text string, toMove rules.Side) (rules.Position, error) {
	return parseBoard(text, toMove, false)
}

func parseBoard(text string, toMove rules.Side, rankOneFirst bool) (rules.Position, error) {
	bad := func(format string, args ...any) (rules.Position, error) {
		return rules.Position{}, errctx.Errorf("protocol", "position %q: %s", clip(text), fmt.Sprintf(format, args...))
	}
	if len(text) < 2 || text[0] != '/' || text[len(text)-1] != '/' {
		return bad("want rows between slashes, such as /3ttttt3/.../")
	}
	rows := strings.Split(text[1:len(text)-1], "/")
	if len(rows) < rules.MinSize || len(rows) > rules.MaxSize {
		return bad("%d rows: want %d to %d", len(rows), rules.MinSize, rules.MaxSize)
	}
	// Translate into taflab's notation (last rank first) and let the rules
	// check the position, so both notations refuse the same positions.
	var b strings.Builder
	for i := range rows {
		// Row i of taflab's notation is rank len(rows)-i.
		rank := len(rows) - i
		row := rows[i]
		if rankOneFirst {
			row = rows[len(rows)-1-i]
		}
		if i > 0 {
			b.WriteByte('/')
		}
		squares := 0
		for j := 0; j < len(row); j++ {
			c := row[j]
			switch {
			case c >= '0' && c <= '9':
				k := j
				for k < len(row) && row[k] >= '0' && row[k] <= '9' {
					k++
				}
				n, err := strconv.Atoi(row[j:k])
				if err != nil || n < 1 || n > rules.MaxSize {
					return bad("rank %d: run of empty squares %q: want 1 to %d", rank, row[j:k], rules.MaxSize)
				}
				b.WriteString(row[j:k])
				squares += n
				j = k - 1
				continue
			case c == 't':
				b.WriteByte('a')
			case c == 'T':
				b.WriteByte('d')
			case c == 'K':
				b.WriteByte('k')
			case c == 'k':
				return bad("rank %d: an attackers' king (k): taflab plays only the defenders' king K", rank)
			case c == 'n' || c == 'c' || c == 'N' || c == 'C':
				return bad("rank %d: %q is a berserk piece: taflab plays no berserk tafl", rank, c)
			default:
				return bad("rank %d: unexpected %q (want t, T, K or a number)", rank, c)
			}
			squares++
		}
		if squares != len(rows) {
			return bad("rank %d %q holds %d squares, want %d", rank, row, squares, len(rows))
		}
	}
	if toMove == rules.Attackers {
		b.WriteString(" a")
	} else {
		b.WriteString(" d")
	}
	p, err := rules.ParsePosition(b.String())
	if err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, "\": "); i >= 0 {
			msg = msg[i+3:] // drop the translated text the rules quote
		}
		return bad("%s", msg)
	}
	return p, nil
}

// FormatBoard writes p's board as an OpenTafl position record, rank 1
// first; the side to move is not part of it.
func FormatBoard(p rules.Position) string { return formatBoard(p, true) }

// FormatBoardInverted writes p's board with the last rank first, as a rules
// string's "starti" entry has it.
func FormatBoardInverted(p rules.Position) string { return formatBoard(p, false) }

// openTaflPieces maps taflab's piece letters to OpenTafl's.
var openTaflPieces = strings.NewReplacer("a", "t", "d", "T", "k", "K")

// formatBoard translates taflab's notation of p (last rank first), as
// parseBoard does the other way, so both notations write one board alike.
func formatBoard(p rules.Position, rankOneFirst bool) string {
	text := p.String()
	text = text[:strings.IndexByte(text, ' ')] // the side to move is not written
	rows := strings.Split(openTaflPieces.Replace(text), "/")
	if rankOneFirst {
		slices.Reverse(rows)
	}
	return "/" + strings.Join(rows, "/") + "/"
}

// SameBoard reports whether two positions have the same pieces on the same
// squares, whoever is to move.
func SameBoard(a, b rules.Position) bool {
	return a.Size == b.Size && a.Attackers == b.Attackers && a.Defenders == b.Defenders && a.King == b.King
}

// ParseMove reads an OpenTafl move record: the simple "e5-e8", or the full
// notation with a piece symbol for the king ("Ke5-e8"), captures after 'x'
// separated by '/' (each with an optional piece symbol), and a trailing
// info symbol (+, -, ++, --). It returns the move and the captured squares
// written. Berserk moves ('^', '=') and resignation ("---") are refused:
// taflab plays neither.
func ParseMove(text string) (rules.Move, rules.Bitboard, error) {
	bad := func(format string, args ...any) (rules.Move, rules.Bitboard, error) {
		return rules.NoMove, rules.Bitboard{}, errctx.Errorf("protocol", "move %q: %s", clip(text), fmt.Sprintf(format, args...))
	}
	if text == "---" {
		return bad("a resignation, not a move")
	}
	s := text
	// A piece symbol is a letter before the from-square's file letter.
	if len(s) >= 2 && isLetter(s[0]) && isLetter(s[1]) {
		s = s[1:]
	}
	// Info symbols follow a square's digits: drop every trailing + and -.
	s = strings.TrimRight(s, "+-")
	if strings.ContainsAny(s, "^=") {
		return bad("a berserk move: taflab plays no berserk tafl")
	}
	body, caps, hasCaps := strings.Cut(s, "x")
	from, to, ok := strings.Cut(body, "-")
	if !ok {
		return bad("want from-to, such as e5-e8")
	}
	f, err := rules.ParseSquare(from)
	if err != nil {
		return bad("from-square %q: not a square", from)
	}
	t, err := rules.ParseSquare(to)
	if err != nil {
		return bad("to-square %q: not a square", to)
	}
	var captured rules.Bitboard
	if hasCaps {
		for _, c := range strings.Split(caps, "/") {
			if len(c) >= 2 && isLetter(c[0]) && isLetter(c[1]) {
				c = c[1:]
			}
			sq, err := rules.ParseSquare(c)
			if err != nil {
				return bad("captured square %q: not a square", c)
			}
			captured = captured.With(sq)
		}
	}
	return rules.NewMove(f, t), captured, nil
}

// FormatMove writes a move in OpenTafl's simple notation, "e5-e8".
func FormatMove(m rules.Move) string { return m.From().String() + "-" + m.To().String() }

// ParseUCIMove reads a move of TaflZero's protocol: the two squares run
// together, "e1e2", "a10a11". A taflab move ("e1-e2") is accepted as well.
func ParseUCIMove(text string) (rules.Move, error) {
	if strings.Contains(text, "-") {
		m, caps, err := rules.ParseMove(text)
		if err != nil || caps.Any() {
			return rules.NoMove, errctx.Errorf("protocol", "move %q: want two squares such as e1e2", clip(text))
		}
		return m, nil
	}
	// The to-square starts at the second letter.
	split := -1
	for i := 1; i < len(text); i++ {
		if isLetter(text[i]) {
			split = i
			break
		}
	}
	if split < 0 {
		return rules.NoMove, errctx.Errorf("protocol", "move %q: want two squares such as e1e2", clip(text))
	}
	f, err := rules.ParseSquare(text[:split])
	if err != nil {
		return rules.NoMove, errctx.Errorf("protocol", "move %q: from-square %q: not a square", clip(text), text[:split])
	}
	t, err := rules.ParseSquare(text[split:])
	if err != nil {
		return rules.NoMove, errctx.Errorf("protocol", "move %q: to-square %q: not a square", clip(text), text[split:])
	}
	return rules.NewMove(f, t), nil
}

// FormatUCIMove writes a move as TaflZero's protocol does, "e1e2".
func FormatUCIMove(m rules.Move) string { return m.From().String() + m.To().String() }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// clip shortens text quoted in an error, so that a line of garbage does not
// make a message of megabytes.
func clip(text string) string {
	const max = 120
	if len(text) > max {
		return text[:max] + "..."
	}
	return text
}
