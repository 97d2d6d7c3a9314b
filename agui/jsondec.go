package agui

import (
	"errors"
	"strconv"
	"sync"
	"unicode/utf8"
)

// This file holds the streaming cursor (decoder) that generated decoding code
// drives token by token, and the pool the package functions take one from.
// The validating scanner under it is in jsonscan.go, the conversion of
// validated string and number literals in jsonlit.go. Nothing here uses reflection, and nothing allocates
// on the success path except the values handed back to the caller (decoded
// strings, raw copies) and the decoder itself.
//
// Hostile input is the design case: every loop consumes at least one byte or
// stops, nesting is bounded by maxDepth (counting both containers opened by
// generated code and those inside skipped or raw values), and no code path
// indexes past the input.

// errDropped is returned by decoder.dropped in lenient mode after an
// unrecognised union member was skipped. Generated code compares with == and
// then leaves the element out; it never escapes the package.
var errDropped = errors.New("agui: unrecognised value dropped")

// ---------------------------------------------------------------------------
// The decoder cursor.
// ---------------------------------------------------------------------------

// pathElem is one step of the JSON Pointer of the value being decoded: an
// object member (index < 0) or an array index. Kept to 32 bytes so the
// decoder with its inline stacks stays in a small, cheap size class.
type pathElem struct {
	key   []byte // member name; aliases the input or a key() allocation
	index int    // array index, or -1 for a member
}

// decoder is the cursor that generated decoding code drives. It reads
// directly from the input slice, which must not be modified while decoding.
//
// Protocol for generated code (errors are returned immediately, unless a
// later member of the same name replaces the failed one):
//
//	var o objMark
//	for i := 0; ; i++ {
//		k, more, err := d.member(&o, i) // member 0 consumes the '{'
//		if !more { /* check required members */ return err }
//		d.push(k)
//		switch string(k) { case "id": v.ID, err = d.str(); ...; default: err = d.unknown(k) }
//		if err != nil && !d.overridden(o, i) { return err }
//		d.pop()
//	}
//
// A decoder must not be copied after first use: its stacks start out in
// inline arrays that the slices point into, so shallow documents cost a
// single allocation (the decoder itself) for all bookkeeping.
type decoder struct {
	data    []byte
	pos     int
	lenient bool

	// mark is the offset of the value (or member name) most recently begun;
	// errors raised by fail, missing and friends point there. After an
	// object or array closes, mark is that container's opening byte.
	mark int

	starts   []int      // offsets of the open containers' opening bytes; len = depth
	path     []pathElem // push/pop stack maintained by generated code
	scratch  []byte     // reused for unescaping strings that are compared, not kept
	warnings []DecodeWarning

	// Inline backing arrays for starts and path: typical AG-UI documents
	// nest about six levels, so these avoid further allocations, while the
	// whole decoder stays under 512 bytes (a cheap allocation for the Go
	// runtime). Deeper documents just grow the slices.
	startsBuf [8]int
	pathBuf   [8]pathElem

	// objects caches, by the offset of an object's '{', what overridden
	// learnt about its members. Only failures fill it.
	objects map[int][]memberSpan

	// strs, when set (StreamDecoder), supplies the strings str returns,
	// reusing those the stream decoded before.
	strs *stringCache
}

// newDecoder returns a cursor at the start of data. lenient selects the
// repair policy of unknown, nullOptional, dropped and warn.
func newDecoder(data []byte, lenient bool) *decoder {
	d := &decoder{data: data, lenient: lenient}
	d.starts = d.startsBuf[:0]
	d.path = d.pathBuf[:0]
	return d
}

// Decoders are pooled: a decoder carries its stacks inline (about half a
// kilobyte), and reusing one makes a decode cost only what it produces.
var decoderPool = sync.Pool{New: func() any { return new(decoder) }}

func getDecoder(data []byte, lenient bool) *decoder {
	d := decoderPool.Get().(*decoder) // reset by putDecoder, or new
	d.begin(data, lenient)
	return d
}

// putDecoder returns d to the pool, reset. Decoders that grew large are
// left to the GC.
func putDecoder(d *decoder) {
	if cap(d.scratch) > 64<<10 || cap(d.path) > 64 {
		return
	}
	d.reset()
	decoderPool.Put(d)
}

// begin readies a reset (or zero) decoder for data.
func (d *decoder) begin(data []byte, lenient bool) {
	d.data, d.lenient = data, lenient
	d.starts = d.startsBuf[:0]
	d.path = d.pathBuf[:0]
}

// reset drops every reference to the input and to what was decoded,
// keeping the scratch buffer (emptied). It resets the fields one by one:
// assigning a whole zero decoder clears half a kilobyte, with a write
// barrier on every pointer while the GC marks, and that twice per document
// was a tenth of decoding a small event. TestDecoderResetsEverything keeps
// the list complete.
func (d *decoder) reset() {
	clear(d.pathBuf[:]) // popped keys stay behind len(d.path), and alias the input
	d.data, d.pos, d.lenient, d.mark = nil, 0, false, 0
	d.starts, d.path, d.warnings, d.objects, d.strs = nil, nil, nil, nil, nil
	d.scratch = d.scratch[:0]
}

// Warnings returns the repairs made so far by a lenient decode, in document
// order. It is always empty in strict mode.
func (d *decoder) Warnings() []DecodeWarning { return d.warnings }

// ws moves the cursor past whitespace and returns the next byte (0 at EOF).
func (d *decoder) ws() byte {
	d.pos = skipSpace(d.data, d.pos)
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

// ---- paths ----------------------------------------------------------------

// push enters the member key of the current object for error paths. key is
// kept by reference; the slices key() returns stay valid for the decode.
func (d *decoder) push(key []byte) {
	d.path = append(d.path, pathElem{key: key, index: -1})
}

// pushIndex enters element i of the current array for error paths.
func (d *decoder) pushIndex(i int) {
	d.path = append(d.path, pathElem{index: i})
}

// pop leaves the innermost path element. An unbalanced pop is ignored rather
// than panicking: a wrong path is better than a crash on user input.
func (d *decoder) pop() {
	if len(d.path) > 0 {
		d.path = d.path[:len(d.path)-1]
	}
}

// pointer renders the path stack as a JSON Pointer (RFC 6901). It is only
// called when an error or warning is created.
func (d *decoder) pointer() string {
	return appendPointer(nil, d.path)
}

func appendPointer(b []byte, path []pathElem) string {
	for _, e := range path {
		b = append(b, '/')
		if e.index >= 0 {
			b = strconv.AppendInt(b, int64(e.index), 10)
			continue
		}
		for _, c := range e.key {
			switch c {
			case '~':
				b = append(b, "~0"...)
			case '/':
				b = append(b, "~1"...)
			default:
				b = append(b, c)
			}
		}
	}
	return string(b)
}

// ---- error constructors ------------------------------------------------------

// errAt returns a *DecodeError at the current path.
func (d *decoder) errAt(offset int, reason string) error {
	return &DecodeError{Path: d.pointer(), Offset: offset, Reason: reason}
}

// syntax converts a scanner error into a *DecodeError at the current path.
func (d *decoder) syntax(e *syntaxError) error {
	return d.errAt(e.offset, "invalid JSON: "+e.msg)
}

// jsonKind names the JSON kind of a value by its first byte, or "" when that
// byte cannot start a value.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "number"
	}
	return ""
}

// mismatch builds the error for a value of the wrong kind at the cursor:
// "expected <want>, got <kind>", located at the value. If the value is not
// even valid JSON, the syntax error is reported instead, so "tru" is not
// described as a boolean. Generated code may call it too, e.g. when no
// variant of a union starts with the byte peekKind returned.
func (d *decoder) mismatch(want string) error {
	d.ws()
	d.mark = d.pos
	if d.pos >= len(d.data) {
		return d.errAt(d.pos, "expected "+want+", got end of input")
	}
	if _, _, err := scanValue(d.data, d.pos, maxDepth-len(d.starts)); err != nil {
		return d.syntax(err)
	}
	return d.errAt(d.pos, "expected "+want+", got "+jsonKind(d.data[d.pos]))
}

// clip shortens s for quoting in an error message, cutting at a rune
// boundary, so a hostile multi-megabyte value cannot bloat logs.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// ---- structure -----------------------------------------------------------------

// open enters a container whose opening byte is at the cursor.
func (d *decoder) open() error {
	if len(d.starts) >= maxDepth {
		return d.syntax(depthError(d.pos))
	}
	d.mark = d.pos
	d.starts = append(d.starts, d.pos)
	d.pos++
	return nil
}

// close leaves the container whose closing byte is at the cursor.
func (d *decoder) close() {
	d.pos++
	if n := len(d.starts); n > 0 {
		d.mark = d.starts[n-1]
		d.starts = d.starts[:n-1]
	}
}

// beginObject consumes the '{' of an object value.
func (d *decoder) beginObject() error {
	if d.ws() != '{' {
		return d.mismatch("object")
	}
	return d.open()
}

// key advances to member i (0-based) of the current object. For i > 0 it
// first consumes the ',' or the closing '}'. It returns more=false once the
// object is closed; otherwise the member name (unescaped; aliasing the input
// when it had no escapes) with the cursor just past the ':'.
func (d *decoder) key(i int) (key []byte, more bool, err error) {
	c := d.ws()
	switch {
	case c == '}':
		d.close()
		return nil, false, nil
	case i == 0 && c != '"':
		return nil, false, d.syntax(unexpected(d.data, d.pos, ", expected string key or '}'"))
	case i > 0 && c != ',':
		return nil, false, d.syntax(unexpected(d.data, d.pos, ", expected ',' or '}'"))
	case i > 0:
		d.pos++
		if d.ws() != '"' {
			return nil, false, d.syntax(unexpected(d.data, d.pos, ", expected string key"))
		}
	}
	start := d.pos
	end, flags, serr := scanString(d.data, start)
	if serr != nil {
		return nil, false, d.syntax(serr)
	}
	lit := d.data[start:end]
	if flags&strEscaped == 0 && (flags&strNonASCII == 0 || utf8.Valid(lit)) {
		key = lit[1 : len(lit)-1]
	} else {
		// A fresh allocation: the key may be pushed and must outlive scratch.
		key = appendUnquoted(make([]byte, 0, len(lit)), lit)
	}
	d.pos = end
	if d.ws() != ':' {
		return nil, false, d.syntax(unexpected(d.data, d.pos, ", expected ':'"))
	}
	d.pos++
	d.mark = start
	return key, true, nil
}

// beginArray consumes the '[' of an array value.
func (d *decoder) beginArray() error {
	if d.ws() != '[' {
		return d.mismatch("array")
	}
	return d.open()
}

// elem advances to element i (0-based) of the current array. For i > 0 it
// first consumes the ',' or the closing ']'. It returns more=false once the
// array is closed; otherwise the cursor is at element i.
func (d *decoder) elem(i int) (more bool, err error) {
	c := d.ws()
	if c == ']' {
		d.close()
		return false, nil
	}
	if i > 0 {
		if c != ',' {
			return false, d.syntax(unexpected(d.data, d.pos, ", expected ',' or ']'"))
		}
		d.pos++
		c = d.ws()
	}
	if c == ']' || d.pos >= len(d.data) { // trailing comma, or "[" at the end
		return false, d.syntax(unexpected(d.data, d.pos, ""))
	}
	return true, nil
}

// end checks that only whitespace follows the top-level value.
func (d *decoder) end() error {
	if d.ws(); d.pos < len(d.data) {
		return d.errAt(d.pos, "unexpected data after the value")
	}
	return nil
}

// ---- scalars ---------------------------------------------------------------

// str reads a string value. The result is always valid UTF-8 (see
// appendUnquoted) and costs one allocation unless it is empty.
func (d *decoder) str() (string, error) {
	if d.ws() != '"' {
		return "", d.mismatch("string")
	}
	start := d.pos
	end, flags, serr := scanString(d.data, start)
	if serr != nil {
		return "", d.syntax(serr)
	}
	d.pos, d.mark = end, start
	lit := d.data[start:end]
	if flags&strEscaped == 0 && (flags&strNonASCII == 0 || utf8.Valid(lit)) {
		return d.strs.get(lit[1 : len(lit)-1]), nil
	}
	// An escaped string is seldom an id that comes back (a tool call's
	// argument text, mostly): it does not take a slot of the cache.
	d.scratch = appendUnquoted(d.scratch[:0], lit)
	return string(d.scratch), nil
}

// integer reads a number that is mathematically an integer (1.0 and 1e3
// qualify, 1.5 does not) and lies within [min, max].
func (d *decoder) integer(min, max int64) (int64, error) {
	c := d.ws()
	if c != '-' && !isDigit(c) {
		return 0, d.mismatch("integer")
	}
	start := d.pos
	end, serr := scanNumber(d.data, start)
	if serr != nil {
		return 0, d.syntax(serr)
	}
	d.mark = start
	num := d.data[start:end]
	v, res := numberToInt(num)
	switch {
	case res == intFraction:
		return 0, d.errAt(start, "expected integer, got "+clip(string(num)))
	case res == intOverflow || v < min || v > max:
		return 0, d.errAt(start, "integer "+clip(string(num))+" is outside ["+
			strconv.FormatInt(min, 10)+", "+strconv.FormatInt(max, 10)+"]")
	}
	d.pos = end
	return v, nil
}

// boolean reads true or false.
func (d *decoder) boolean() (bool, error) {
	switch d.ws() {
	case 't':
		if end, err := scanLiteral(d.data, d.pos, "true"); err == nil {
			d.pos, d.mark = end, d.pos
			return true, nil
		}
	case 'f':
		if end, err := scanLiteral(d.data, d.pos, "false"); err == nil {
			d.pos, d.mark = end, d.pos
			return false, nil
		}
	}
	return false, d.mismatch("boolean")
}

// constString reads a string that must equal want (a discriminator such as
// "type": "TEXT_MESSAGE_START"). It does not allocate when the value matches.
func (d *decoder) constString(want string) error {
	if d.ws() != '"' {
		return d.mismatch(strconv.Quote(want))
	}
	start := d.pos
	end, flags, serr := scanString(d.data, start)
	if serr != nil {
		return d.syntax(serr)
	}
	d.mark = start
	got := d.quoted(d.data[start:end], flags)
	if string(got) != want {
		return d.errAt(start, "expected "+strconv.Quote(want)+", got "+strconv.Quote(clip(string(got))))
	}
	d.pos = end
	return nil
}

// raw validates any JSON value (null included) and returns a copy of its
// exact bytes, whitespace inside it included; the copy lets the caller keep
// it after the input buffer is reused.
func (d *decoder) raw() ([]byte, error) {
	if d.ws() == 0 && d.pos >= len(d.data) {
		return nil, d.mismatch("value")
	}
	return d.rawValue()
}

// rawObject is raw for values that must be JSON objects.
func (d *decoder) rawObject() ([]byte, error) {
	if d.ws() != '{' {
		return nil, d.mismatch("object")
	}
	return d.rawValue()
}

func (d *decoder) rawValue() ([]byte, error) {
	start := d.pos
	end, _, serr := scanValue(d.data, start, maxDepth-len(d.starts))
	if serr != nil {
		return nil, d.syntax(serr)
	}
	d.pos, d.mark = end, start
	return append([]byte(nil), d.data[start:end]...), nil
}

// skip validates and steps over any one value.
func (d *decoder) skip() error {
	if d.ws() == 0 && d.pos >= len(d.data) {
		return d.mismatch("value")
	}
	start := d.pos
	end, _, serr := scanValue(d.data, start, maxDepth-len(d.starts))
	if serr != nil {
		return d.syntax(serr)
	}
	d.pos, d.mark = end, start
	return nil
}

// peekKind returns the first byte of the next value without consuming it:
// '{', '[', '"', 'n', 't', 'f', '0' for any number, 0 at end of input. Any
// other byte is returned as is; the next read will then report it.
func (d *decoder) peekKind() byte {
	c := d.ws()
	if c == '-' || isDigit(c) {
		return '0'
	}
	return c
}

// isNull consumes the next value if it is the literal null. Anything else
// is left alone without building the error scanLiteral would report.
func (d *decoder) isNull() bool {
	if d.ws() != 'n' {
		return false
	}
	if end, err := scanLiteral(d.data, d.pos, "null"); err == nil {
		d.mark = d.pos
		d.pos = end
		return true
	}
	return false
}

// findString looks ahead, without consuming anything, for the top-level
// member name of the object at the cursor, typically a union discriminator
// such as "type" or "role". found is false when the member is absent or the
// value at the cursor is not an object (the following beginObject reports
// that). If the member occurs more than once the last one counts, as in
// JSON.parse; earlier ones are not looked at. A non-string value is an error
// located at that member.
func (d *decoder) findString(name string) (val string, found bool, err error) {
	b, found, err := d.findBytes(name, true)
	return string(b), found, err
}

// findBytes is findString without the copy: the value aliases the input or
// d.scratch, so it is valid only until the decoder reads on. With last
// false it stops at the first occurrence: the fast path of union decoding,
// which looks for a later one only when the first does not work out.
func (d *decoder) findBytes(name string, last bool) (val []byte, found bool, err error) {
	data := d.data
	i := skipSpace(data, d.pos)
	if i >= len(data) || data[i] != '{' {
		return nil, false, nil
	}
	limit := maxDepth - len(d.starts) - 1
	at := -1 // offset of the value of the last occurrence of name
	for member := 0; ; member++ {
		i = skipSpace(data, i+1) // past '{' or ','
		if member == 0 && i < len(data) && data[i] == '}' {
			break
		}
		if i >= len(data) || data[i] != '"' {
			return nil, false, d.syntax(unexpected(data, i, ", expected string key"))
		}
		end, flags, serr := scanString(data, i)
		if serr != nil {
			return nil, false, d.syntax(serr)
		}
		match := string(d.quoted(data[i:end], flags)) == name
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil, false, d.syntax(unexpected(data, i, ", expected ':'"))
		}
		i = skipSpace(data, i+1)
		if match {
			at = i
			if !last {
				break
			}
		}
		if i, _, serr = scanValue(data, i, limit); serr != nil {
			if match {
				break // reported below, at the member
			}
			return nil, false, d.syntax(serr)
		}
		i = skipSpace(data, i)
		if i < len(data) && data[i] == '}' {
			break
		}
		if i >= len(data) || data[i] != ',' {
			return nil, false, d.syntax(unexpected(data, i, ", expected ',' or '}'"))
		}
	}
	if at < 0 {
		return nil, false, nil
	}
	if at < len(data) && data[at] == '"' {
		if end, flags, serr := scanString(data, at); serr == nil {
			return d.quoted(data[at:end], flags), true, nil
		}
	}
	// Error path: report at /…/name with a throw-away cursor, so this
	// decoder's position and mark stay untouched.
	path := append(append([]pathElem(nil), d.path...), pathElem{key: []byte(name), index: -1})
	look := &decoder{data: data, pos: at, starts: d.starts, path: path}
	_, err = look.str() // fails: not a string, or a malformed one
	return nil, true, err
}

// ---- members given twice ------------------------------------------------------

// objMark remembers where an object's decoding began, so a member that failed
// can be abandoned when a later member of the same name replaces it.
type objMark struct {
	depth int // len(d.starts) with the object open
	path  int // len(d.path) outside the object's members
}

// member is key for generated struct decoders: member 0 first consumes the
// object's '{' and records in o where the object began, so the decoder can
// come back to it after a member failed (see overridden).
func (d *decoder) member(o *objMark, i int) (key []byte, more bool, err error) {
	if i == 0 {
		path := len(d.path)
		if err := d.beginObject(); err != nil {
			return nil, false, err
		}
		*o = objMark{depth: len(d.starts), path: path}
	}
	return d.key(i)
}

// cursor is the state of a decoder that save records and restore returns to.
type cursor struct{ pos, mark, starts, path, warnings int }

func (d *decoder) save() cursor {
	return cursor{d.pos, d.mark, len(d.starts), len(d.path), len(d.warnings)}
}

// restore returns to c. Going forward again (to a later save) is allowed as
// long as nothing was pushed in between: the stacks' backing arrays still
// hold what was there.
func (d *decoder) restore(c cursor) {
	d.pos, d.mark = c.pos, c.mark
	d.starts, d.path, d.warnings = d.starts[:c.starts], d.path[:c.path], d.warnings[:c.warnings]
}

// memberSpan is one member of an object as overridden sees it.
type memberSpan struct {
	end        int  // offset just past the member's value
	overridden bool // a later member has the same name
}

// overridden is called when member i (named key) of the object marked by o
// failed to decode. JSON.parse, and the schema that validates its result,
// only see the last of several members with one name, so if a later member
// has the same name the failure does not count: the cursor moves past the
// failed value, the object's state is restored, and true is returned.
//
// The first failure in an object scans the whole object once and caches
// what it learnt, so hostile input with thousands of failing duplicates
// costs linear time. A syntax error anywhere in the object means no
// recovery: the original error stands.
func (d *decoder) overridden(o objMark, i int) bool {
	if o.depth == 0 || o.depth > len(d.starts) {
		return false
	}
	start := d.starts[o.depth-1]
	spans, ok := d.objects[start]
	if !ok {
		spans = d.scanMembers(start, maxDepth-o.depth)
		if d.objects == nil {
			d.objects = map[int][]memberSpan{}
		}
		d.objects[start] = spans
	}
	if i >= len(spans) || !spans[i].overridden {
		return false
	}
	d.pos = spans[i].end
	d.starts = d.starts[:o.depth]
	d.path = d.path[:o.path+1] // the member's key stays pushed for the caller's pop
	return true
}

// scanMembers lists the members of the object whose '{' is at start; nil
// when the object is not valid JSON.
func (d *decoder) scanMembers(start, limit int) []memberSpan {
	data := d.data
	var spans []memberSpan
	var names []string
	i := start
	for member := 0; ; member++ {
		i = skipSpace(data, i+1)
		if member == 0 && i < len(data) && data[i] == '}' {
			break
		}
		if i >= len(data) || data[i] != '"' {
			return nil
		}
		end, flags, serr := scanString(data, i)
		if serr != nil {
			return nil
		}
		names = append(names, string(d.quoted(data[i:end], flags)))
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil
		}
		if i, _, serr = scanValue(data, i+1, limit); serr != nil {
			return nil
		}
		spans = append(spans, memberSpan{end: i})
		i = skipSpace(data, i)
		if i < len(data) && data[i] == '}' {
			break
		}
		if i >= len(data) || data[i] != ',' {
			return nil
		}
	}
	later := make(map[string]bool, len(names))
	for j := len(names) - 1; j >= 0; j-- {
		spans[j].overridden = later[names[j]]
		later[names[j]] = true
	}
	return spans
}

// ---- policy hooks -----------------------------------------------------------------

// unknown handles a member that a closed object does not declare; the cursor
// is at its value and its key is pushed. Strict decoding rejects it; lenient
// decoding drops it with a warning so newer peers can add members.
func (d *decoder) unknown(key []byte) error {
	if !d.lenient {
		return d.errAt(d.mark, "unknown property")
	}
	if err := d.skip(); err != nil {
		return err
	}
	d.warnings = append(d.warnings, DecodeWarning{Path: d.pointer(), Message: "removed unrecognised member"})
	return nil
}

// nullOptional is called after isNull consumed a null for an optional
// property. The protocol says "omit instead of null"; lenient mode forgives
// it only where the generator marked legacy peers as sending it (tolerated).
func (d *decoder) nullOptional(tolerated bool) error {
	if d.lenient && tolerated {
		d.warnings = append(d.warnings, DecodeWarning{Path: d.pointer(), Message: "converted legacy null to absent"})
		return nil
	}
	return d.errAt(d.mark, "null is not allowed; omit the property instead")
}

// missing reports a required property that the current object lacks. Called
// after the object closed, so the offset is the object's '{'.
func (d *decoder) missing(name string) error {
	return d.errAt(d.mark, "missing required property "+strconv.Quote(name))
}

// fail reports a semantic problem (unknown enum value, constraint violated)
// with the value most recently read.
func (d *decoder) fail(reason string) error {
	return d.errAt(d.mark, reason)
}

// warn records a lenient-mode repair at the current path; strict decoding
// never repairs, so it is a no-op there.
func (d *decoder) warn(msg string) {
	if d.lenient {
		d.warnings = append(d.warnings, DecodeWarning{Path: d.pointer(), Message: msg})
	}
}

// dropped handles a union member whose discriminator is unknown (e.g. a
// content part of a future "type"); the cursor is at the value. Lenient mode
// skips it, records a warning and returns errDropped so the caller leaves it
// out; strict mode rejects the document.
func (d *decoder) dropped(what string) error {
	start := skipSpace(d.data, d.pos)
	if !d.lenient {
		d.mark = start
		return d.errAt(start, "unknown "+what)
	}
	if err := d.skip(); err != nil {
		return err
	}
	d.warnings = append(d.warnings, DecodeWarning{Path: d.pointer(), Message: "removed unrecognised " + what})
	return errDropped
}
