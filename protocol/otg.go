package protocol

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"taflab/internal/errctx"
	"taflab/rules"
)

// An OpenTafl game record (.otg; opentafl-notation-spec.txt, section 4) is
// tags, one a line ("[event:Grandmasters' Tournament 2015]"), the rules tag
// last ("[rules:dim:11 atkf:y ... start:/.../]"), then the turns: a turn
// number and the moves of one turn ("12. Kf6-c6 a8-c8"), each turn
// followed by its commentary, a comment a move separated by '|'
// ("[first|second]", over several lines if need be). Variations are turns
// numbered by an address ("12b.1.1a."); this reader counts them and keeps
// the principal line. OpenTafl itself reads only what its
// GameSerializer.java does: a tag value must not hold ']' nor the text
// "1. ", a comment neither '|' nor ']', a move at most four captures, and
// it starts a game from its rules string's start: FormatGameRecord writes
// what it reads.

// GameRecord is an OpenTafl game record.
type GameRecord struct {
	// Tags are the record's tags in order, the rules tag among them.
	Tags []Tag
	// Moves are the moves of the principal line with their comments.
	Moves []RecordMove
	// Resigned is set when the principal line ends with a resignation
	// ("---") of the side to move.
	Resigned bool
	// Variations counts the turns of variations, which are skipped.
	Variations int
}

// Tag is one of a game record's tags: "[key:value]".
type Tag struct {
	Key, Value string
}

// The tags this package reads.
const (
	TagRules        = "rules"         // the rules string
	TagPosition     = "position"      // the start, when not the rules string's
	TagResult       = "result"        // "1" attackers won, "0" a draw, "-1" defenders won, "?" other
	TagAttackers    = "attackers"     // the attackers' player
	TagDefenders    = "defenders"     // the defenders' player
	TagStartComment = "start-comment" // a comment shown before the first move
)

// RecordMove is a move of a game record: the move, the captures written
// after it, and the comment on it ("" for none).
type RecordMove struct {
	Move     rules.Move
	Captures rules.Bitboard
	Comment  string
}

// Tag returns the value of the first tag of that key, or "".
func (r *GameRecord) Tag(key string) string {
	for _, t := range r.Tags {
		if t.Key == key {
			return t.Value
		}
	}
	return ""
}

// SetTag sets a tag's value, adding the tag before the rules tag (which
// stays last) if the record has none of that key.
func (r *GameRecord) SetTag(key, value string) {
	for i := range r.Tags {
		if r.Tags[i].Key == key {
			r.Tags[i].Value = value
			return
		}
	}
	at := len(r.Tags)
	for i, t := range r.Tags {
		if t.Key == TagRules {
			at = i
			break
		}
	}
	r.Tags = append(r.Tags[:at], append([]Tag{{key, value}}, r.Tags[at:]...)...)
}

// ParseGameRecord reads an OpenTafl game record. It refuses, naming the
// line, a tag that is not "[key:value]", a record without a rules tag, a
// turn of the principal line out of order, a move it cannot read (berserk
// moves among them) and a comment left open. It does not check the moves
// against the rules: compile the rules tag (CompileRules) and replay them.
func ParseGameRecord(data []byte) (*GameRecord, error) {
	p := &otgParser{text: string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))), line: 1}
	r := &GameRecord{}
	if err := p.tags(r); err != nil {
		return nil, err
	}
	if err := p.turns(r); err != nil {
		return nil, err
	}
	return r, nil
}

// otgParser reads a game record's text from pos, counting lines.
type otgParser struct {
	text string
	pos  int
	line int // the line of pos, from 1
}

func (p *otgParser) errorf(format string, args ...any) error {
	return errctx.Errorf("protocol", "game record: line %d: %s", p.line, fmt.Sprintf(format, args...))
}

// skipSpace skips white space, counting lines.
func (p *otgParser) skipSpace() {
	for p.pos < len(p.text) && strings.IndexByte(" \t\n\r", p.text[p.pos]) >= 0 {
		if p.text[p.pos] == '\n' {
			p.line++
		}
		p.pos++
	}
}

// until returns the text up to the first of the bytes in stop (or the
// end) and moves past it, counting lines; ok is false at the end.
func (p *otgParser) until(stop string) (text string, ok bool) {
	i := strings.IndexAny(p.text[p.pos:], stop)
	if i < 0 {
		text = p.text[p.pos:]
		p.line += strings.Count(text, "\n")
		p.pos = len(p.text)
		return text, false
	}
	text = p.text[p.pos : p.pos+i]
	p.line += strings.Count(text, "\n")
	p.pos += i
	return text, true
}

// tags reads the header: the tags before the first turn.
func (p *otgParser) tags(r *GameRecord) error {
	for {
		p.skipSpace()
		if p.pos >= len(p.text) || p.text[p.pos] != '[' {
			break
		}
		line, _ := p.until("\n")
		line = strings.TrimSpace(line)
		body, ok := strings.CutPrefix(line, "[")
		if body, ok = strings.CutSuffix(body, "]"); !ok {
			return p.errorf("tag %q: want [key:value] on one line", clip(line))
		}
		key, value, ok := strings.Cut(body, ":")
		if !ok || key == "" {
			return p.errorf("tag %q: want [key:value]", clip(line))
		}
		r.Tags = append(r.Tags, Tag{Key: key, Value: value})
	}
	if r.Tag(TagRules) == "" {
		return p.errorf("no rules tag ([rules:dim:11 ... start:/.../]) before the moves")
	}
	return nil
}

// turns reads the turns and their comments.
func (p *otgParser) turns(r *GameRecord) error {
	next := 1            // the principal line's next turn number
	lastTurn := -1       // index in r.Moves of the last principal turn's first move, or -1
	inVariation := false // the last turn read was a variation's
	for {
		p.skipSpace()
		if p.pos >= len(p.text) {
			return nil
		}
		if p.text[p.pos] == '[' {
			start := p.line
			p.pos++
			body, ok := p.until("]")
			if !ok {
				p.line = start
				return p.errorf("a comment that is never closed with ]")
			}
			p.pos++
			if inVariation || lastTurn < 0 {
				continue // a variation's comment, or one before any move
			}
			for i, c := range strings.Split(body, "|") {
				if lastTurn+i < len(r.Moves) {
					r.Moves[lastTurn+i].Comment = c
				}
			}
			continue
		}
		lineNo := p.line
		text, _ := p.until("\n[")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue // white space skipSpace does not know
		}
		number := fields[0]
		if !strings.HasSuffix(number, ".") {
			p.line = lineNo
			return p.errorf("%q: want a turn number such as \"%d.\" first", clip(text), next)
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(number, ".")); err != nil {
			r.Variations++ // a variation's address, such as "12b.1.1a."
			inVariation = true
			continue
		} else if n != next {
			p.line = lineNo
			return p.errorf("turn %d: want turn %d", n, next)
		}
		if r.Resigned {
			p.line = lineNo
			return p.errorf("turn %d after a resignation", next)
		}
		next++
		inVariation = false
		lastTurn = len(r.Moves)
		for _, tok := range fields[1:] {
			if tok == "---" {
				r.Resigned = true
				break
			}
			m, caps, err := ParseMove(tok)
			if err != nil {
				p.line = lineNo
				return p.errorf("turn %d: %v", next-1, err)
			}
			r.Moves = append(r.Moves, RecordMove{Move: m, Captures: caps})
		}
	}
}

// FormatGameRecord writes a game record as OpenTafl reads it: the tags one
// a line with the rules tag last, a blank line, then each turn's moves on
// a line (with at most four of a move's captures, all OpenTafl's notation
// holds) and its comments below it in brackets. A resignation is not
// written (OpenTafl's reader takes none): say it in a termination tag. A tag value or a comment
// holding what OpenTafl cannot read (a line break in a tag, ']', '|', '['
// in a comment, "1. " in a tag) is refused, naming it.
func FormatGameRecord(r *GameRecord) ([]byte, error) {
	var b bytes.Buffer
	var rulesTag *Tag
	for i, t := range r.Tags {
		if t.Key == "" || strings.ContainsAny(t.Key, ":[]\n") {
			return nil, errctx.Errorf("protocol", "game record: tag key %q: want a word without ':', brackets or line breaks", t.Key)
		}
		if strings.ContainsAny(t.Value, "[]\n\r") || strings.Contains(t.Value, "1. ") {
			return nil, errctx.Errorf("protocol", "game record: tag %s: %q holds a bracket, a line break or \"1. \", which OpenTafl cannot read", t.Key, clip(t.Value))
		}
		if t.Key == TagRules {
			rulesTag = &r.Tags[i]
			continue
		}
		fmt.Fprintf(&b, "[%s:%s]\n", t.Key, t.Value)
	}
	if rulesTag == nil {
		return nil, errctx.Errorf("protocol", "game record: no rules tag")
	}
	fmt.Fprintf(&b, "[%s:%s]\n\n", rulesTag.Key, rulesTag.Value)
	for i, m := range r.Moves {
		if strings.ContainsAny(m.Comment, "[]|") {
			return nil, errctx.Errorf("protocol", "game record: move %d: comment %q holds a bracket or '|', which OpenTafl cannot read", i+1, clip(m.Comment))
		}
	}
	for turn := 0; 2*turn < len(r.Moves); turn++ {
		moves := r.Moves[2*turn : min(2*turn+2, len(r.Moves))]
		fmt.Fprintf(&b, "%d.", turn+1)
		for _, m := range moves {
			b.WriteByte(' ')
			b.WriteString(formatRecordMove(m))
		}
		b.WriteByte('\n')
		comments := make([]string, len(moves))
		any := false
		for i, m := range moves {
			comments[i] = m.Comment
			any = any || m.Comment != ""
		}
		if any {
			fmt.Fprintf(&b, "[%s]\n", strings.Join(comments, "|"))
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// formatRecordMove writes a move with at most four of its captures, in
// square order.
func formatRecordMove(m RecordMove) string {
	s := FormatMove(m.Move)
	caps := m.Captures
	for k := 0; k < 4 && caps.Any(); k++ {
		if k == 0 {
			s += "x"
		} else {
			s += "/"
		}
		s += caps.PopFirst().String()
	}
	return s
}
