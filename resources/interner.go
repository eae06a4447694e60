package resources

// Interner hands out one frozen storage for values with the same entries,
// so that many holders of equal values (the totals of a cluster's agents,
// which are mostly a few machine shapes) keep one copy between them rather
// than one each. It remembers the last few distinct values it handed out;
// a value that is not among them is copied, frozen and remembered in place
// of the least recently used. Handing out a remembered value is always
// safe: frozen values are never changed in place (see Resources).
//
// Values are the same when they hold the same entries in the same order,
// which is stricter than Equal: a value handed out for rs prints, encodes
// and iterates exactly as rs does, so sharing changes nothing anyone can
// read. The zero value is ready to use; an Interner is not safe for
// concurrent use.
type Interner struct {
	// recent holds the values handed out, most recently used first.
	recent [internerSize]Resources
}

// internerSize is how many distinct values an Interner remembers: enough
// for the machine shapes of most clusters, few enough that a miss (one
// comparison of lengths and first kinds each, mostly) stays cheap.
const internerSize = 16

// Intern returns a frozen value with rs's entries in rs's order: one handed
// out before when the Interner still remembers it, else a frozen copy of rs
// (rs itself when rs is already frozen), remembered from now on.
func (in *Interner) Intern(rs Resources) Resources {
	if len(rs.entries) == 0 {
		return Resources{}
	}
	for i := range in.recent {
		if v := in.recent[i]; sameEntries(v, rs) {
			copy(in.recent[1:i+1], in.recent[:i])
			in.recent[0] = v
			return v
		}
	}
	v := rs
	if !v.frozen {
		v = Resources{entries: append([]entry(nil), rs.entries...), frozen: true}
	}
	copy(in.recent[1:], in.recent[:internerSize-1])
	in.recent[0] = v
	return v
}

// sameEntries reports whether a and b hold the same entries in the same
// order: same kinds, values, allocation roles and copies.
func sameEntries(a, b Resources) bool {
	if len(a.entries) != len(b.entries) {
		return false
	}
	if a.Identical(b) {
		return true // one storage
	}
	for i := range a.entries {
		x, y := &a.entries[i], &b.entries[i]
		if x.copies() != y.copies() || !sameKind(x, y) || !sameValue(x, y) {
			return false
		}
	}
	return true
}
