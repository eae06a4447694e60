package resources

import (
	"fmt"
	"github.com/allot-go/allot/internal/fixed"
	"strconv"
	"strings"
	"unicode"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/volume"
)

// maxCopies bounds the copy count of a shared resource in text. JSON writes
// one object per copy, so an unbounded count would let a short text expand
// without limit.
const maxCopies = 4096

// specialChars may not appear unquoted in a word of the text format.
const specialChars = ";:,()[]{}<>\"\\"

// Parse reads resources in Mesos's text format, or a JSON array of
// Mesos-shaped Resource objects when the text starts with '['.
//
// The text format is a ';'-separated list of name:value entries. A value is a
// scalar (4, 1.5), ranges ([31000-32000, 33000-33010]) or a set ({sda,sdb}).
// A role in parentheses, cpus(roleA):4, statically reserves the entry for
// that role; entries without one take defaultRole ("" or "*" leave them
// unreserved). Beyond what Mesos reads, Parse also reads everything String
// prints, so any Resources survives a round trip through text:
//
//	cpus(allocated: web)(reservations: [(DYNAMIC,web,ops,{team: a})]):4
//	disk(reservations: [(DYNAMIC,db,ops)])[id:pg,principal:ops,path:data]<SHARED>:1024<2>
//	disk[MOUNT:/mnt/ssd]:4096; cpus{REV}:2; mem(provider: rp1):64
//
// Words holding special characters (;:,()[]{}<>" or spaces) are written as
// Go-quoted strings. Zero amounts are dropped (gpus:0 is empty). Every error
// wraps one of the package's sentinel errors and names the offending entry.
func Parse(text, defaultRole string) (Resources, error) {
	trimmed := strings.TrimSpace(text)
	if defaultRole != "" && defaultRole != reservation.Any {
		if err := reservation.ValidateRole(defaultRole); err != nil {
			return Resources{}, fmt.Errorf("%w: default role: %w", ErrInvalidRole, err)
		}
	}
	if strings.HasPrefix(trimmed, "[") {
		return parseJSON([]byte(trimmed), defaultRole)
	}
	p := &parser{text: text}
	var out Resources
	var types typeChecker
	if trimmed == "{}" {
		return out, nil
	}
	for {
		p.skipSpace()
		if p.done() {
			break
		}
		if p.peek() == ';' {
			p.pos++
			continue
		}
		start := p.pos
		r, copies, err := p.resource(defaultRole)
		if err != nil {
			return Resources{}, fmt.Errorf("%w (in %q)", err, p.excerpt(start))
		}
		if err := r.Validate(); err != nil {
			return Resources{}, fmt.Errorf("%w (in %q)", err, p.excerpt(start))
		}
		if err := types.check(&r); err != nil {
			return Resources{}, fmt.Errorf("%w (in %q)", err, p.excerpt(start))
		}
		if !r.IsEmpty() {
			n := r.normalized()
			out.addEntry(entryOf(&n, int32(copies)))
		}
		p.skipSpace()
		if p.done() {
			break
		}
		if !p.eat(';') {
			return Resources{}, p.errorf("expected ';' after %q", p.text[start:p.pos])
		}
	}
	return out, nil
}

// MustParse is Parse for tests and examples; it panics on invalid input.
func MustParse(text, defaultRole string) Resources {
	r, err := Parse(text, defaultRole)
	if err != nil {
		panic(err)
	}
	return r
}

// typeChecker remembers the value type of every name met in one value,
// including names whose values were empty and dropped or merged, to refuse
// one name with two types. The first few names need no map: most values
// name only a few. Parse, ParseJSON and the binary reader share it.
type typeChecker struct {
	few  [8]nameType
	n    int
	more map[string]ValueType
}

type nameType struct {
	name string
	typ  ValueType
}

func (tc *typeChecker) check(r *Resource) error {
	if t, ok := tc.note(r.Name, r.Type); !ok {
		return fmt.Errorf("%w: %s is both %s and %s", ErrMixedTypes, r.Name, t, r.Type)
	}
	return nil
}

// note records that name has type typ; when name was met before with
// another type it returns that type and false.
func (tc *typeChecker) note(name string, typ ValueType) (ValueType, bool) {
	for _, x := range tc.few[:tc.n] {
		if x.name == name {
			return x.typ, x.typ == typ
		}
	}
	if t, ok := tc.more[name]; ok {
		return t, t == typ
	}
	if tc.n < len(tc.few) {
		tc.few[tc.n] = nameType{name, typ}
		tc.n++
	} else {
		if tc.more == nil {
			tc.more = map[string]ValueType{}
		}
		tc.more[name] = typ
	}
	return typ, true
}

type parser struct {
	text string
	pos  int
}

func (p *parser) done() bool { return p.pos >= len(p.text) }

func (p *parser) peek() byte {
	if p.done() {
		return 0
	}
	return p.text[p.pos]
}

func (p *parser) skipSpace() {
	for !p.done() && (p.text[p.pos] == ' ' || p.text[p.pos] == '\t' || p.text[p.pos] == '\n' || p.text[p.pos] == '\r') {
		p.pos++
	}
}

func (p *parser) eat(c byte) bool {
	p.skipSpace()
	if p.peek() == c {
		p.pos++
		return true
	}
	return false
}

func (p *parser) eatWord(w string) bool {
	p.skipSpace()
	if strings.HasPrefix(p.text[p.pos:], w) {
		p.pos += len(w)
		return true
	}
	return false
}

func (p *parser) expect(c byte, what string) error {
	if !p.eat(c) {
		return p.errorf("expected '%c' %s", c, what)
	}
	return nil
}

// excerpt returns the token that starts at start: up to the next ';' after
// the parse position, or the end of the text, cut to a readable length.
func (p *parser) excerpt(start int) string {
	end := len(p.text)
	if i := strings.IndexByte(p.text[max(p.pos, start):], ';'); i >= 0 {
		end = max(p.pos, start) + i
	}
	const maxLen = 120
	if end-start > maxLen {
		return p.text[start:start+maxLen] + "..."
	}
	return p.text[start:end]
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", ErrSyntax, p.pos, fmt.Sprintf(format, args...))
}

// word reads a bare word (up to a special character or space) or a
// Go-quoted string.
func (p *parser) word() (string, error) {
	p.skipSpace()
	if p.peek() == '"' {
		q, err := strconv.QuotedPrefix(p.text[p.pos:])
		if err != nil {
			return "", p.errorf("bad quoted string")
		}
		p.pos += len(q)
		s, _ := strconv.Unquote(q)
		return s, nil
	}
	start := p.pos
	for !p.done() {
		c := p.text[p.pos]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || strings.IndexByte(specialChars, c) >= 0 {
			break
		}
		p.pos++
	}
	return p.text[start:p.pos], nil
}

func (p *parser) resource(defaultRole string) (Resource, int, error) {
	var r Resource
	name, err := p.word()
	if err != nil {
		return r, 0, err
	}
	if name == "" {
		return r, 0, p.errorf("expected a resource name")
	}
	r.Name = name
	legacyRole, hasRole := "", false
	for {
		p.skipSpace()
		switch {
		case p.eatWord("(allocated:"):
			role, err := p.word()
			if err != nil {
				return r, 0, err
			}
			if err := reservation.ValidateRole(role); err != nil {
				return r, 0, fmt.Errorf("%w: %w", ErrInvalidRole, err)
			}
			r.AllocationRole = role
			if err := p.expect(')', "after allocation role"); err != nil {
				return r, 0, err
			}
		case p.eatWord("(reservations:"):
			stack, err := p.stack()
			if err != nil {
				return r, 0, err
			}
			r.Reservations, hasRole = stack, true
			if err := p.expect(')', "after reservations"); err != nil {
				return r, 0, err
			}
		case p.eatWord("(provider:"):
			id, err := p.word()
			if err != nil {
				return r, 0, err
			}
			r.ProviderID = id
			if err := p.expect(')', "after provider id"); err != nil {
				return r, 0, err
			}
		case p.eat('('):
			role, err := p.word()
			if err != nil {
				return r, 0, err
			}
			if !p.eat(')') {
				return r, 0, p.errorf("mismatched parentheses after role %q", role)
			}
			if hasRole {
				return r, 0, p.errorf("two roles for %s", name)
			}
			if err := reservation.ValidateRole(role); err != nil {
				return r, 0, fmt.Errorf("%w: %w", ErrInvalidRole, err)
			}
			legacyRole, hasRole = role, true
		case p.eat('['):
			if r.Disk != nil {
				return r, 0, p.errorf("two disk descriptions for %s", name)
			}
			d, err := p.disk()
			if err != nil {
				return r, 0, err
			}
			if d.IsEmpty() {
				return r, 0, p.errorf("empty disk description []")
			}
			r.Disk = d
		case p.eatWord("{REV}"):
			r.Revocable = true
		case p.eatWord("<SHARED>"):
			r.Shared = true
		case p.eat(':'):
			if legacyRole == "" && !hasRole {
				legacyRole = defaultRole
			}
			if legacyRole != "" && legacyRole != reservation.Any {
				r.Reservations = reservation.Stack{{Type: reservation.Static, Role: legacyRole}}
			}
			if err := p.value(&r); err != nil {
				return r, 0, err
			}
			copies := 1
			if p.eat('<') {
				n, err := p.word()
				if err != nil {
					return r, 0, err
				}
				copies, err = strconv.Atoi(n)
				if err != nil || copies < 1 || copies > maxCopies {
					return r, 0, p.errorf("bad copy count %q", n)
				}
				if !r.Shared {
					return r, 0, p.errorf("copy count on a resource that is not shared")
				}
				if err := p.expect('>', "after copy count"); err != nil {
					return r, 0, err
				}
			}
			return r, copies, nil
		case p.peek() == ')':
			return r, 0, p.errorf("mismatched parentheses")
		default:
			return r, 0, p.errorf("expected ':' after %q", name)
		}
	}
}

func (p *parser) value(r *Resource) error {
	p.skipSpace()
	switch p.peek() {
	case '[':
		p.pos++
		r.Type = RangesType
		var list []Range
		for !p.eat(']') {
			if len(list) > 0 && !p.eat(',') {
				return p.errorf("expected ',' or ']' in ranges")
			}
			b, err := p.word()
			if err != nil {
				return err
			}
			begin, end, ok := strings.Cut(b, "-")
			lo, err1 := strconv.ParseUint(begin, 10, 64)
			hi, err2 := strconv.ParseUint(end, 10, 64)
			if !ok || err1 != nil || err2 != nil {
				return fmt.Errorf("%w: %s: bad range %q", ErrInvalidRanges, r.Name, b)
			}
			if lo > hi {
				return fmt.Errorf("%w: %s: [%d-%d] begins after it ends", ErrInvalidRanges, r.Name, lo, hi)
			}
			list = append(list, Range{lo, hi})
			if p.done() {
				return p.errorf("unterminated ranges")
			}
		}
		if err := validateRanges(list); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalidRanges, r.Name, err)
		}
		sorted := coalesce(list)
		r.Ranges = sorted
		if len(r.Ranges) == 0 {
			r.Ranges = Ranges{}
		}
	case '{':
		p.pos++
		r.Type = SetType
		var items []string
		for !p.eat('}') {
			if len(items) > 0 && !p.eat(',') {
				return p.errorf("expected ',' or '}' in set")
			}
			item, err := p.word()
			if err != nil {
				return err
			}
			items = append(items, item)
			if p.done() {
				return p.errorf("unterminated set")
			}
		}
		s, err := NewSet(items...)
		if err != nil {
			return fmt.Errorf("%w (%s)", err, r.Name)
		}
		if s == nil {
			s = Set{}
		}
		r.Set = s
	default:
		w, err := p.word()
		if err != nil {
			return err
		}
		s, err := parseScalarText(w)
		if err != nil {
			return fmt.Errorf("%w (%s)", err, r.Name)
		}
		r.Type, r.Scalar = ScalarType, s
	}
	return nil
}

// parseScalarText reads a non-negative decimal. A non-zero value that rounds
// to zero at three decimals is an error, as in Mesos.
func parseScalarText(text string) (Scalar, error) {
	if text == "" {
		return 0, fmt.Errorf("%w: missing value", ErrInvalidScalar)
	}
	for _, c := range text {
		if !(c >= '0' && c <= '9') && c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-' {
			return 0, fmt.Errorf("%w %q: not a decimal number", ErrInvalidScalar, text)
		}
	}
	var s Scalar
	if m, plain, err := fixed.ParseDecimal(text); plain {
		// Plain decimals are read exactly, whatever their size.
		if err != nil {
			return 0, fmt.Errorf("%w %q: %w", ErrInvalidScalar, text, err)
		}
		s = Scalar(m)
	} else {
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return 0, fmt.Errorf("%w %q: not a number", ErrInvalidScalar, text)
		}
		if s, err = ScalarOf(v); err != nil {
			return 0, err
		}
	}
	if s == 0 && nonZeroMantissa(text) {
		return 0, fmt.Errorf("%w %q: not zero but rounds to zero at three decimals", ErrInvalidScalar, text)
	}
	return s, nil
}

// nonZeroMantissa reports whether a decimal's digits before any exponent are
// not all zero: "1e-400" is not zero even though it parses to 0.
func nonZeroMantissa(text string) bool {
	for _, c := range text {
		switch {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			return true
		}
	}
	return false
}

func (p *parser) stack() (reservation.Stack, error) {
	if err := p.expect('[', "to open reservations"); err != nil {
		return nil, err
	}
	stack := reservation.Stack{}
	for !p.eat(']') {
		if len(stack) > 0 && !p.eat(',') {
			return nil, p.errorf("expected ',' or ']' in reservations")
		}
		if err := p.expect('(', "to open a reservation"); err != nil {
			return nil, err
		}
		var res reservation.Reservation
		switch {
		case p.eatWord("STATIC"):
			res.Type = reservation.Static
		case p.eatWord("DYNAMIC"):
			res.Type = reservation.Dynamic
		default:
			return nil, p.errorf("expected STATIC or DYNAMIC")
		}
		if err := p.expect(',', "after reservation type"); err != nil {
			return nil, err
		}
		role, err := p.word()
		if err != nil {
			return nil, err
		}
		res.Role = role
		if p.eat(',') {
			if res.Principal, err = p.word(); err != nil {
				return nil, err
			}
			if p.eat(',') {
				if res.Labels, err = p.labels(); err != nil {
					return nil, err
				}
			}
		}
		if err := p.expect(')', "to close a reservation"); err != nil {
			return nil, err
		}
		stack = append(stack, res)
		if p.done() {
			return nil, p.errorf("unterminated reservations")
		}
	}
	if err := stack.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidReservation, err)
	}
	return stack, nil
}

func (p *parser) labels() (reservation.Labels, error) {
	if err := p.expect('{', "to open labels"); err != nil {
		return nil, err
	}
	labels := reservation.Labels{}
	for !p.eat('}') {
		if len(labels) > 0 && !p.eat(',') {
			return nil, p.errorf("expected ',' or '}' in labels")
		}
		var l reservation.Label
		var err error
		if l.Key, err = p.word(); err != nil {
			return nil, err
		}
		if p.eat(':') {
			if l.Value, err = p.word(); err != nil {
				return nil, err
			}
		}
		labels = append(labels, l)
		if p.done() {
			return nil, p.errorf("unterminated labels")
		}
	}
	return labels, nil
}

func (p *parser) disk() (*volume.Disk, error) {
	d := &volume.Disk{}
	first := true
	for !p.eat(']') {
		if !first && !p.eat(',') {
			return nil, p.errorf("expected ',' or ']' in disk")
		}
		first = false
		key, err := p.word()
		if err != nil {
			return nil, err
		}
		if t, ok := volume.ParseSourceType(key); ok {
			if d.Source != nil {
				return nil, p.errorf("two disk sources")
			}
			d.Source = &volume.Source{Type: t}
			if p.eat(':') {
				if d.Source.Root, err = p.word(); err != nil {
					return nil, err
				}
			}
			if p.eatWord("(id:") {
				if d.Source.ID, err = p.word(); err != nil {
					return nil, err
				}
				if err := p.expect(')', "after source id"); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := p.expect(':', "after disk key "+strconv.Quote(key)); err != nil {
			return nil, err
		}
		val, err := p.word()
		if err != nil {
			return nil, err
		}
		if d.Persistence == nil && key != "id" {
			return nil, p.errorf("disk key %q before the persistence id", key)
		}
		switch key {
		case "id":
			if d.Persistence != nil {
				return nil, p.errorf("two persistence ids")
			}
			d.Persistence = &volume.Persistence{ID: val}
		case "principal":
			d.Persistence.Principal = val
		case "path":
			if d.Volume == nil {
				d.Volume = &volume.Volume{Mode: volume.RW}
			}
			d.Volume.ContainerPath = val
		case "mode":
			if d.Volume == nil {
				d.Volume = &volume.Volume{}
			}
			switch val {
			case "RW":
				d.Volume.Mode = volume.RW
			case "RO":
				d.Volume.Mode = volume.RO
			default:
				return nil, p.errorf("unknown volume mode %q", val)
			}
		default:
			return nil, p.errorf("unknown disk key %q", key)
		}
		if p.done() {
			return nil, p.errorf("unterminated disk")
		}
	}
	return d, nil
}

// String prints the resources in the text format, entries joined by "; ",
// or "{}" when empty. Parse reads the output back to equal resources.
func (rs Resources) String() string {
	if len(rs.entries) == 0 {
		return "{}"
	}
	var b strings.Builder
	var buf [onStack]Range
	for i := range rs.entries {
		if i > 0 {
			b.WriteString("; ")
		}
		r := rs.entries[i].view(buf[:0])
		writeResource(&b, &r, int(rs.entries[i].copies()))
	}
	return b.String()
}

func writeResource(b *strings.Builder, r *Resource, copies int) {
	b.WriteString(r.Name)
	if r.AllocationRole != "" {
		b.WriteString("(allocated: ")
		b.WriteString(quote(r.AllocationRole))
		b.WriteByte(')')
	}
	switch {
	case len(r.Reservations) == 1 && r.Reservations[0].Type == reservation.Static &&
		r.Reservations[0].Principal == "" && r.Reservations[0].Labels == nil:
		b.WriteByte('(')
		b.WriteString(quote(r.Reservations[0].Role))
		b.WriteByte(')')
	case len(r.Reservations) > 0:
		b.WriteString("(reservations: [")
		for i, res := range r.Reservations {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			b.WriteString(res.Type.String())
			b.WriteByte(',')
			b.WriteString(quote(res.Role))
			if res.Principal != "" || res.Labels != nil {
				b.WriteByte(',')
				if res.Principal != "" || res.Labels == nil {
					b.WriteString(quote(res.Principal))
				}
			}
			if res.Labels != nil {
				b.WriteString(",{")
				for j, l := range res.Labels {
					if j > 0 {
						b.WriteString(", ")
					}
					b.WriteString(quote(l.Key))
					if l.Value != "" {
						b.WriteString(": ")
						b.WriteString(quote(l.Value))
					}
				}
				b.WriteByte('}')
			}
			b.WriteByte(')')
		}
		b.WriteString("])")
	}
	if r.ProviderID != "" {
		b.WriteString("(provider: ")
		b.WriteString(quote(r.ProviderID))
		b.WriteByte(')')
	}
	if !r.Disk.IsEmpty() {
		writeDisk(b, r.Disk)
	}
	if r.Revocable {
		b.WriteString("{REV}")
	}
	if r.Shared {
		b.WriteString("<SHARED>")
	}
	b.WriteByte(':')
	switch r.Type {
	case ScalarType:
		b.WriteString(r.Scalar.String())
	case RangesType:
		b.WriteString(r.Ranges.String())
	case SetType:
		b.WriteByte('{')
		for i, item := range r.Set {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quote(item))
		}
		b.WriteByte('}')
	}
	if r.Shared && copies > 1 {
		fmt.Fprintf(b, "<%d>", copies)
	}
}

func writeDisk(b *strings.Builder, d *volume.Disk) {
	var parts []string
	if s := d.Source; s != nil {
		part := s.Type.String()
		if s.Root != "" {
			part += ":" + quote(s.Root)
		}
		if s.ID != "" {
			part += "(id:" + quote(s.ID) + ")"
		}
		parts = append(parts, part)
	}
	if p := d.Persistence; p != nil {
		parts = append(parts, "id:"+quote(p.ID))
		if p.Principal != "" {
			parts = append(parts, "principal:"+quote(p.Principal))
		}
		if v := d.Volume; v != nil {
			if v.ContainerPath != "" {
				parts = append(parts, "path:"+quote(v.ContainerPath))
			}
			if v.Mode != volume.RW || v.ContainerPath == "" {
				parts = append(parts, "mode:"+v.Mode.String())
			}
		}
	}
	b.WriteByte('[')
	b.WriteString(strings.Join(parts, ","))
	b.WriteByte(']')
}

// quote returns s as a bare word when the parser reads it back unchanged,
// else as a Go-quoted string.
func quote(s string) string {
	if s == "" {
		return `""`
	}
	for _, c := range s {
		if c == utf8RuneError || unicode.IsSpace(c) || !unicode.IsPrint(c) || strings.ContainsRune(specialChars, c) {
			return strconv.Quote(s)
		}
	}
	return s
}

const utf8RuneError = '\uFFFD'
