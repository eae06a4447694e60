package placement

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

type filterKind uint8

const (
	filterEquals filterKind = iota + 1
	filterIn
	filterNotIn
	filterUniqueHost
	filterMaxPerValue
	filterPredicate
)

// Filter is a hard constraint: a task goes only on an offer that every
// filter admits. Build filters with AttributeEquals, AttributeIn,
// AttributeNotIn, UniqueHost, MaxPerValue and Predicate; the zero Filter is
// invalid. Filters are values and may be shared by any number of tasks and
// calls.
type Filter struct {
	kind   filterKind
	attr   string
	values []string // sorted, distinct
	max    int
	custom *predicate
}

type predicate struct {
	name string
	f    func(Task, Candidate) bool
}

// AttributeEquals admits agents whose attribute attr is value. Agents
// without the attribute are refused.
func AttributeEquals(attr, value string) Filter {
	return Filter{kind: filterEquals, attr: attr, values: []string{value}}
}

// AttributeIn admits agents whose attribute attr is one of values. Agents
// without the attribute are refused.
func AttributeIn(attr string, values ...string) Filter {
	return Filter{kind: filterIn, attr: attr, values: sortedSet(values)}
}

// AttributeNotIn admits agents whose attribute attr is none of values,
// agents without the attribute included.
func AttributeNotIn(attr string, values ...string) Filter {
	return Filter{kind: filterNotIn, attr: attr, values: sortedSet(values)}
}

// UniqueHost admits an agent only if no task of the task's group runs
// there or was placed there: at most one task of a group per agent.
func UniqueHost() Filter { return Filter{kind: filterUniqueHost} }

// MaxPerValue admits an agent only while fewer than n tasks of the task's
// group run or were placed on agents with the same value of attribute attr:
// with "zone" and 2, at most two replicas per zone. Agents without the
// attribute are refused.
func MaxPerValue(attr string, n int) Filter {
	return Filter{kind: filterMaxPerValue, attr: attr, max: n}
}

// Predicate is a custom filter named name: it admits the candidates for
// which f returns true. f must answer from the task and the candidate alone
// (see Candidate), and the same way for tasks alike but for their ids:
// Place asks it once for a whole group of such tasks, and again only for
// agents that have changed since.
func Predicate(name string, f func(Task, Candidate) bool) Filter {
	return Filter{kind: filterPredicate, custom: &predicate{name: name, f: f}}
}

func sortedSet(values []string) []string {
	out := slices.Clone(values)
	slices.Sort(out)
	return slices.Compact(out)
}

// String prints the filter as reasons name it: `zone == "a"`,
// `zone in {"a","b"}`, `zone not in {"c"}`, "unique host",
// `at most 2 per zone`, or a predicate's name.
func (f Filter) String() string {
	switch f.kind {
	case filterEquals:
		return f.attr + " == " + strconv.Quote(f.values[0])
	case filterIn:
		return f.attr + " in " + quoteSet(f.values)
	case filterNotIn:
		return f.attr + " not in " + quoteSet(f.values)
	case filterUniqueHost:
		return "unique host"
	case filterMaxPerValue:
		return fmt.Sprintf("at most %d per %s", f.max, f.attr)
	case filterPredicate:
		if f.custom != nil {
			return f.custom.name
		}
	}
	return "invalid filter"
}

func quoteSet(values []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(v))
	}
	b.WriteByte('}')
	return b.String()
}

// validate checks f; where says where it was found ("" or `task "t1": `).
func (f Filter) validate(where string) error {
	switch f.kind {
	case filterEquals, filterIn, filterNotIn:
		if f.attr == "" {
			return fmt.Errorf("%w: %s%s: empty attribute name", ErrInvalidFilter, where, f)
		}
		if f.kind != filterEquals && len(f.values) == 0 {
			return fmt.Errorf("%w: %s%s: no values", ErrInvalidFilter, where, f)
		}
	case filterUniqueHost:
	case filterMaxPerValue:
		if f.attr == "" {
			return fmt.Errorf("%w: %s%s: empty attribute name", ErrInvalidFilter, where, f)
		}
		if f.max < 1 {
			return fmt.Errorf("%w: %s%s: the limit must be at least 1", ErrInvalidFilter, where, f)
		}
	case filterPredicate:
		if f.custom == nil || f.custom.name == "" {
			return fmt.Errorf("%w: %sa predicate without a name", ErrInvalidFilter, where)
		}
		if f.custom.f == nil {
			return fmt.Errorf("%w: %spredicate %q without a function", ErrInvalidFilter, where, f.custom.name)
		}
	default:
		return fmt.Errorf("%w: %sthe zero Filter; build filters with AttributeEquals, UniqueHost, ...", ErrInvalidFilter, where)
	}
	return nil
}

// usesAttribute returns the attribute whose values the filter compares.
func (f Filter) usesAttribute() (string, bool) {
	switch f.kind {
	case filterEquals, filterIn, filterNotIn, filterMaxPerValue:
		return f.attr, true
	}
	return "", false
}

// appendKey appends an encoding of f that tells filters apart; custom
// predicates are numbered by ids in order of first appearance.
func (f Filter) appendKey(b []byte, ids map[*predicate]int) []byte {
	b = append(b, 'F', byte(f.kind))
	b = appendString(b, f.attr)
	b = strconv.AppendInt(b, int64(len(f.values)), 10)
	for _, v := range f.values {
		b = appendString(b, v)
	}
	b = strconv.AppendInt(b, int64(f.max), 10)
	if f.custom != nil {
		b = append(b, '#')
		b = strconv.AppendInt(b, int64(customID(ids, f.custom)), 10)
	}
	return b
}

func customID[K comparable](ids map[K]int, k K) int {
	id, ok := ids[k]
	if !ok {
		id = len(ids)
		ids[k] = id
	}
	return id
}

// appendString appends s with its length, so that no two sequences of
// strings encode alike.
func appendString(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// same reports whether f and o are the same filter.
func (f Filter) same(o Filter) bool {
	return f.kind == o.kind && f.attr == o.attr && f.max == o.max && f.custom == o.custom && slices.Equal(f.values, o.values)
}
