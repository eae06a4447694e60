package reservation

import (
	"errors"
	"strings"
	"testing"
)

func TestTypeString(t *testing.T) {
	for typ, want := range map[Type]string{Static: "STATIC", Dynamic: "DYNAMIC", 0: "Type(0)", 9: "Type(9)"} {
		if got := typ.String(); got != want {
			t.Errorf("Type(%d).String() = %q, want %q", typ, got, want)
		}
	}
}

func TestLabelsEqual(t *testing.T) {
	kv := func(pairs ...string) Labels {
		l := Labels{}
		for i := 0; i < len(pairs); i += 2 {
			l = append(l, Label{pairs[i], pairs[i+1]})
		}
		return l
	}
	tests := []struct {
		name string
		a, b Labels
		want bool
	}{
		{"nil and nil", nil, nil, true},
		{"nil and empty", nil, Labels{}, false},
		{"empty and nil", Labels{}, nil, false},
		{"empty and empty", Labels{}, Labels{}, true},
		{"same order", kv("a", "1", "b", "2"), kv("a", "1", "b", "2"), true},
		{"other order", kv("a", "1", "b", "2"), kv("b", "2", "a", "1"), true},
		{"other value", kv("a", "1"), kv("a", "2"), false},
		{"value and none", kv("a", "1"), kv("a", ""), false},
		{"subset", kv("a", "1"), kv("a", "1", "b", "2"), false},
		{"duplicates count", kv("a", "1", "a", "1"), kv("a", "1", "b", "2"), false},
		{"multiset", kv("a", "1", "a", "1", "b", "2"), kv("a", "1", "b", "2", "b", "2"), false},
		{"same duplicates", kv("a", "1", "b", "2", "a", "1"), kv("a", "1", "a", "1", "b", "2"), true},
	}
	for _, tt := range tests {
		if got := tt.a.Equal(tt.b); got != tt.want {
			t.Errorf("%s: %v.Equal(%v) = %v, want %v", tt.name, tt.a, tt.b, got, tt.want)
		}
		if got := tt.b.Equal(tt.a); got != tt.want {
			t.Errorf("%s: Equal is not symmetric", tt.name)
		}
	}
}

func TestLabelsCanonical(t *testing.T) {
	if Labels(nil).Canonical() != nil {
		t.Error("nil labels became non-nil")
	}
	if c := (Labels{}).Canonical(); c == nil || len(c) != 0 {
		t.Errorf("empty labels became %#v", c)
	}
	in := Labels{{"b", "2"}, {"a", "9"}, {"a", "1"}}
	c := in.Canonical()
	want := Labels{{"a", "1"}, {"a", "9"}, {"b", "2"}}
	if c.String() != want.String() {
		t.Errorf("Canonical = %v, want %v", c, want)
	}
	if in[0].Key != "b" {
		t.Error("Canonical modified its receiver")
	}
}

func TestLabelsString(t *testing.T) {
	l := Labels{{"k", "v"}, {"k2", ""}}
	if got := l.String(); got != "{k: v, k2}" {
		t.Errorf("String = %q", got)
	}
	if got := (Labels{}).String(); got != "{}" {
		t.Errorf("empty String = %q", got)
	}
}

func TestReservationEqual(t *testing.T) {
	base := Reservation{Type: Dynamic, Role: "a", Principal: "p", Labels: Labels{{"k", "v"}, {"x", ""}}}
	same := Reservation{Type: Dynamic, Role: "a", Principal: "p", Labels: Labels{{"x", ""}, {"k", "v"}}}
	if !base.Equal(same) {
		t.Error("label order matters")
	}
	for name, other := range map[string]Reservation{
		"type":         {Type: Static, Role: "a", Principal: "p", Labels: base.Labels},
		"role":         {Type: Dynamic, Role: "b", Principal: "p", Labels: base.Labels},
		"principal":    {Type: Dynamic, Role: "a", Principal: "q", Labels: base.Labels},
		"no principal": {Type: Dynamic, Role: "a", Labels: base.Labels},
		"labels":       {Type: Dynamic, Role: "a", Principal: "p", Labels: Labels{{"k", "v"}}},
		"nil labels":   {Type: Dynamic, Role: "a", Principal: "p"},
	} {
		if base.Equal(other) || other.Equal(base) {
			t.Errorf("reservations differing in %s are equal", name)
		}
	}
	noLabels := Reservation{Type: Dynamic, Role: "a"}
	emptyLabels := Reservation{Type: Dynamic, Role: "a", Labels: Labels{}}
	if noLabels.Equal(emptyLabels) {
		t.Error(`"no labels" equals "empty labels"`)
	}
}

func TestReservationValidate(t *testing.T) {
	tests := []struct {
		r    Reservation
		rule string
	}{
		{Reservation{Type: Static, Role: "a"}, ""},
		{Reservation{Type: Dynamic, Role: "a/b", Principal: "p", Labels: Labels{{"k", ""}}}, ""},
		{Reservation{Role: "a"}, "unknown type"},
		{Reservation{Type: 7, Role: "a"}, "unknown type"},
		{Reservation{Type: Static}, "no role"},
		{Reservation{Type: Dynamic, Role: "*"}, "'*' cannot be reserved"},
		{Reservation{Type: Dynamic, Role: "a//b"}, "'//'"},
		{Reservation{Type: Dynamic, Role: "a", Labels: Labels{{"", "v"}}}, "empty key"},
	}
	for _, tt := range tests {
		err := tt.r.Validate()
		if tt.rule == "" {
			if err != nil {
				t.Errorf("%v.Validate() = %v", tt.r, err)
			}
			continue
		}
		if !errors.Is(err, ErrInvalidReservation) || !strings.Contains(err.Error(), tt.rule) {
			t.Errorf("%v.Validate() = %v, want ErrInvalidReservation naming %q", tt.r, err, tt.rule)
		}
	}
	if err := (Reservation{Type: Dynamic, Role: "a//b"}).Validate(); !errors.Is(err, ErrInvalidRole) {
		t.Errorf("bad role does not wrap ErrInvalidRole: %v", err)
	}
}

func TestReservationString(t *testing.T) {
	tests := []struct {
		r    Reservation
		want string
	}{
		{Reservation{Type: Static, Role: "alice"}, "(STATIC,alice)"},
		{Reservation{Type: Dynamic, Role: "alice/refined", Principal: "principal", Labels: Labels{{"k", "v"}, {"k2", ""}}}, "(DYNAMIC,alice/refined,principal,{k: v, k2})"},
		{Reservation{Type: Dynamic, Role: "a", Principal: "p"}, "(DYNAMIC,a,p)"},
		{Reservation{Type: Dynamic, Role: "a", Labels: Labels{}}, "(DYNAMIC,a,,{})"},
	}
	for _, tt := range tests {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("String = %q, want %q", got, tt.want)
		}
	}
}
