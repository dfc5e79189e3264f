package tomlbound

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// scanner walks a TOML file as github.com/BurntSushi/toml's lexer and
// parser read it, measuring what the bounds limit. It stops at the first
// bound passed (err) or the first syntax error (gaveUp, with no error: the
// decoder reports it). Its recursion follows the nesting, which the depth
// bound stops at MaxDepth.
type scanner struct {
	data []byte
	i    int // the next byte
	line int // the line of data[i], from 1

	// tables are the tables that headers named, as a tree: a later header
	// or dotted key through an array of tables goes into its last table,
	// one level deeper.
	tables tableNode

	depth, keys, values int
	gaveUp              bool
	err                 error
}

// tableNode is a table a header named, with the tables headers named in
// it. An array of tables' node stands for its last table: a new [[...]]
// header empties its kids.
type tableNode struct {
	kids  map[string]*tableNode // by the key part, decoded
	array bool                  // an array of tables
}

// kid returns the node of a table in n, made if new.
func (n *tableNode) kid(part string) *tableNode {
	if n.kids == nil {
		n.kids = map[string]*tableNode{}
	}
	k := n.kids[part]
	if k == nil {
		k = &tableNode{}
		n.kids[part] = k
	}
	return k
}

// lookup returns the node of a table in n, or nil.
func (n *tableNode) lookup(part string) *tableNode {
	if n == nil {
		return nil
	}
	return n.kids[part]
}

// path is where a key sits: its table's node (nil where no header reaches,
// as in an inline table) and the bytes of its parts so far.
type path struct {
	node  *tableNode
	bytes int
}

// stopped reports whether the scan has ended, by a bound or a syntax error.
func (s *scanner) stopped() bool { return s.err != nil || s.gaveUp }

func (s *scanner) fail(what, bound string) {
	if s.err == nil {
		s.err = &LimitError{Line: s.line, What: what, Bound: bound}
	}
}

func (s *scanner) giveUp() { s.gaveUp = true }

func (s *scanner) eof() bool { return s.i >= len(s.data) }

func (s *scanner) peek() byte {
	if s.eof() {
		return 0
	}
	return s.data[s.i]
}

// peekAt returns the byte k past the next, or 0 past the end.
func (s *scanner) peekAt(k int) byte {
	if s.i+k >= len(s.data) {
		return 0
	}
	return s.data[s.i+k]
}

func (s *scanner) advance() {
	if s.data[s.i] == '\n' {
		s.line++
	}
	s.i++
}

func isSpace(c byte) bool   { return c == ' ' || c == '\t' }
func isNewline(c byte) bool { return c == '\n' || c == '\r' }

func isBareKeyByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func (s *scanner) skipSpace() {
	for !s.eof() && isSpace(s.peek()) {
		s.advance()
	}
}

// skipComment skips a comment from its '#' to the line's end (not past it).
func (s *scanner) skipComment() {
	for !s.eof() && !isNewline(s.peek()) {
		s.advance()
	}
}

// skipBlank skips spaces, line ends and comments: what may come between
// the values of an array or an inline table.
func (s *scanner) skipBlank() {
	for !s.eof() {
		switch c := s.peek(); {
		case isSpace(c) || isNewline(c):
			s.advance()
		case c == '#':
			s.skipComment()
		default:
			return
		}
	}
}

// node counts a value, table or array element nested d deep.
func (s *scanner) node(d int) {
	s.values++
	if s.values > MaxValues {
		s.fail(fmt.Sprintf("more than %d keys, tables and array elements", MaxValues), "the most a TOML file may hold")
	}
	s.depth = max(s.depth, d)
	s.checkDepth(d)
}

// checkDepth refuses a value nested d deep, as soon as a key or header
// goes that deep.
func (s *scanner) checkDepth(d int) {
	if d > MaxDepth {
		s.fail(fmt.Sprintf("a value nested %d deep", d), fmt.Sprintf("past the most a TOML file may nest (%d tables, arrays and inline tables)", MaxDepth))
	}
}

// keyBytes checks a key path's length.
func (s *scanner) keyBytes(p path) {
	if p.bytes > MaxKeyBytes {
		s.fail(fmt.Sprintf("a key %d bytes long with its tables'", p.bytes), fmt.Sprintf("past the most a TOML key may be (%d bytes)", MaxKeyBytes))
	}
}

// document scans the whole file: key/value lines and table headers.
func (s *scanner) document() {
	for _, bom := range []string{"\xff\xfe", "\xfe\xff", "\xef\xbb\xbf"} { // the decoder skips one
		if bytes.HasPrefix(s.data, []byte(bom)) {
			s.i = len(bom)
			break
		}
	}
	table, tableDepth := path{node: &s.tables}, 0
	for !s.stopped() {
		s.skipBlank()
		if s.eof() {
			return
		}
		if s.peek() == '[' {
			table, tableDepth = s.header()
		} else {
			s.keyValue(table, tableDepth)
		}
		if !s.stopped() {
			s.lineEnd()
		}
	}
}

// lineEnd scans what may follow a top-level item: spaces, a comment, then
// a line end or the file's end.
func (s *scanner) lineEnd() {
	s.skipSpace()
	if s.peek() == '#' {
		s.skipComment()
	}
	if !s.eof() && !isNewline(s.peek()) {
		s.giveUp()
	}
}

// header scans a [table] or [[array]] header and returns its path and the
// depth of the values directly in it.
func (s *scanner) header() (path, int) {
	s.advance() // '['
	array := s.peek() == '['
	if array {
		s.advance()
	}
	p, d := path{node: &s.tables}, 0
	for {
		s.skipSpace()
		part, ok := s.keyPart()
		if !ok {
			s.giveUp()
			return p, 0
		}
		p.node = p.node.kid(part)
		p.bytes += len(part)
		s.keyBytes(p)
		s.skipSpace()
		if s.peek() != '.' {
			break
		}
		s.advance()
		d++ // a table the header goes through
		if p.node.array {
			d++ // and the last table of an array of tables
		}
		if s.checkDepth(d); s.stopped() {
			return p, 0
		}
	}
	if s.peek() != ']' || array && s.peekAt(1) != ']' {
		s.giveUp()
		return p, 0
	}
	s.advance()
	s.keys++
	if array {
		s.advance()
		p.node.array, p.node.kids = true, nil // a new table, empty
		s.node(d + 1)                         // the array's new table, one value with the array (d deep)
		return p, d + 2
	}
	s.node(d)
	return p, d + 1
}

// keyValue scans "key = value" in a table whose path is base and whose
// values are d deep. Its dotted parts may go through arrays of tables
// that headers declared (base.node; nil in an inline table, whose tables
// are all its own).
func (s *scanner) keyValue(base path, d int) {
	p := base
	for {
		s.skipSpace()
		part, ok := s.keyPart()
		if !ok {
			s.giveUp()
			return
		}
		p.node = p.node.lookup(part)
		p.bytes += len(part)
		s.keyBytes(p)
		s.skipSpace()
		if s.peek() != '.' {
			break
		}
		s.advance()
		d++
		if p.node != nil && p.node.array {
			d++
		}
		if s.checkDepth(d); s.stopped() {
			return
		}
	}
	if s.peek() != '=' {
		s.giveUp()
		return
	}
	s.advance()
	s.keys++
	s.node(d)
	if s.stopped() {
		return
	}
	s.skipSpace()
	s.value(p, d)
}

// keyPart scans one part of a key: bare, "basic" or 'literal', and returns
// it decoded.
func (s *scanner) keyPart() (string, bool) {
	switch c := s.peek(); {
	case c == '"':
		s.advance()
		return s.basicString()
	case c == '\'':
		s.advance()
		return s.literalString()
	case isBareKeyByte(c):
		start := s.i
		for !s.eof() && isBareKeyByte(s.peek()) {
			s.advance()
		}
		return string(s.data[start:s.i]), true
	}
	return "", false
}

// value scans a value nested d deep whose key path is p.
func (s *scanner) value(p path, d int) {
	switch c := s.peek(); {
	case c == '[':
		s.advance()
		s.array(p, d)
	case c == '{':
		s.advance()
		s.inlineTable(p, d)
	case c == '"':
		s.advance()
		if s.peek() == '"' && s.peekAt(1) == '"' {
			s.i += 2
			s.multiline('"')
		} else if _, ok := s.basicString(); !ok {
			s.giveUp()
		}
	case c == '\'':
		s.advance()
		if s.peek() == '\'' && s.peekAt(1) == '\'' {
			s.i += 2
			s.multiline('\'')
		} else if _, ok := s.literalString(); !ok {
			s.giveUp()
		}
	default:
		s.scalar()
	}
}

// scalar scans a number, date, time or boolean: up to the next byte that
// can follow a value or start a string or a container, none of which a
// scalar holds (a date's space between date and time it does).
func (s *scanner) scalar() {
	start := s.i
	for !s.eof() {
		switch s.peek() {
		case ',', ']', '}', '[', '{', '#', '"', '\'', '=', '\n', '\r':
			if s.i == start {
				s.giveUp()
			}
			return
		}
		s.advance()
	}
	if s.i == start {
		s.giveUp()
	}
}

// array scans an array's elements, after its '['; the array is d deep.
func (s *scanner) array(p path, d int) {
	for !s.stopped() {
		s.skipBlank()
		if s.peek() == ']' {
			s.advance()
			return
		}
		if s.eof() || s.peek() == ',' {
			s.giveUp()
			return
		}
		s.node(d + 1)
		if s.stopped() {
			return
		}
		s.value(p, d+1)
		if s.stopped() {
			return
		}
		s.skipBlank()
		switch s.peek() {
		case ',':
			s.advance()
		case ']':
			s.advance()
			return
		default:
			s.giveUp()
		}
	}
}

// inlineTable scans an inline table's keys and values, after its '{'; the
// table is d deep and its path is p.
func (s *scanner) inlineTable(p path, d int) {
	s.skipBlank()
	if s.peek() == '}' {
		s.advance()
		return
	}
	for !s.stopped() {
		s.skipBlank()
		s.keyValue(path{bytes: p.bytes}, d+1)
		if s.stopped() {
			return
		}
		s.skipBlank()
		switch s.peek() {
		case ',':
			s.advance()
			s.skipBlank()
			if s.peek() == '}' { // a trailing comma
				s.advance()
				return
			}
		case '}':
			s.advance()
			return
		default:
			s.giveUp()
		}
	}
}

// basicString scans a one-line "basic" string after its opening quote and
// returns it decoded (escapes the decoder refuses come back as they are:
// it stops there anyway).
func (s *scanner) basicString() (string, bool) {
	var b strings.Builder
	for !s.eof() {
		c := s.peek()
		switch {
		case c == '"':
			s.advance()
			return b.String(), true
		case isNewline(c):
			return "", false
		case c == '\\':
			s.advance()
			b.WriteString(s.escape())
		default:
			b.WriteByte(c)
			s.advance()
		}
	}
	return "", false
}

// escape scans an escape after its backslash and returns what it stands
// for.
func (s *scanner) escape() string {
	if s.eof() {
		return ""
	}
	c := s.peek()
	s.advance()
	hex := 0
	switch c {
	case 'b':
		return "\b"
	case 't':
		return "\t"
	case 'n':
		return "\n"
	case 'f':
		return "\f"
	case 'r':
		return "\r"
	case 'e':
		return "\x1b"
	case '"', '\\':
		return string(c)
	case 'x':
		hex = 2
	case 'u':
		hex = 4
	case 'U':
		hex = 8
	default:
		return string(c)
	}
	if s.i+hex > len(s.data) {
		return ""
	}
	digits := string(s.data[s.i : s.i+hex])
	n, err := strconv.ParseUint(digits, 16, 32)
	if err != nil {
		return "" // the decoder refuses it and stops there
	}
	s.i += hex // hex digits hold no line end
	return string(rune(n))
}

// literalString scans a one-line 'literal' string after its opening quote.
func (s *scanner) literalString() (string, bool) {
	start := s.i
	for !s.eof() {
		c := s.peek()
		switch {
		case c == '\'':
			text := string(s.data[start:s.i])
			s.advance()
			return text, true
		case isNewline(c):
			return "", false
		}
		s.advance()
	}
	return "", false
}

// multiline scans a multi-line string after its opening triple quote
// (quote '"' or '\”), up to a run of three or more quotes that closes it
// (the decoder takes the last three as the end). It refuses the runs the
// decoder refuses: six or more quotes, where the decoder's check is that
// five quotes, not after a backslash, come before another; so in a basic
// string a run of six after an escaped backslash passes, and a run of six
// after an escaped quote (which the check counts as a sixth) does not.
func (s *scanner) multiline(quote byte) {
	before := byte(0) // what comes before the next byte: 0 the string's start or text, '"' an escaped quote, '\\' an escaped backslash
	for !s.eof() {
		c := s.peek()
		if c == '\\' && quote == '"' {
			s.advance()
			before = 0
			if !s.eof() {
				if e := s.peek(); e == '"' || e == '\\' {
					before = e
				}
				s.advance() // the escaped byte; an escape's hex digits are not quotes
			}
			continue
		}
		if c != quote {
			s.advance()
			before = 0
			continue
		}
		run := 0
		for !s.eof() && s.peek() == quote {
			s.advance()
			run++
		}
		if run >= 3 {
			refused := run >= 6
			if quote == '"' && before == '\\' {
				refused = run >= 7
			}
			if refused {
				s.giveUp()
			}
			return
		}
		before = 0
	}
	s.giveUp()
}
