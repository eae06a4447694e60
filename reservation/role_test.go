package reservation

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestValidateRole(t *testing.T) {
	valid := []string{
		"*", "a", "role", "a/b", "a/b/c", "tenant1/private/test-framework",
		"a.b", "a..b", ".a", "a-", "a*", "a/b-c", "r_1", "ünïcødé", "a(b)", "x:y",
		strings.Repeat("a", 1000),
	}
	for _, role := range valid {
		if err := ValidateRole(role); err != nil {
			t.Errorf("ValidateRole(%q) = %v, want nil", role, err)
		}
	}
	invalid := []struct{ role, rule string }{
		{"", "empty"},
		{"/", "starts with '/'"},
		{"/a", "starts with '/'"},
		{"a/", "ends with '/'"},
		{"a//b", "'//'"},
		{".", "reserved"},
		{"..", "reserved"},
		{"a/.", "reserved"},
		{"a/../b", "reserved"},
		{"a/*", "reserved"},
		{"*/a", "reserved"},
		{"**", ""}, // valid? see below
		{"-a", "starts with '-'"},
		{"a/-b", "starts with '-'"},
		{"a b", "whitespace"},
		{"a\tb", "whitespace"},
		{"a\nb", "whitespace"},
		{"a\x7fb", "control"},
		{"a\x00b", "control"},
		{"a\u00a0b", "whitespace"},
		{"a\xffb", "UTF-8"},
	}
	for _, tt := range invalid {
		err := ValidateRole(tt.role)
		if tt.role == "**" {
			// "**" is a component that is not exactly "*": valid, as in Mesos.
			if err != nil {
				t.Errorf("ValidateRole(%q) = %v, want nil", tt.role, err)
			}
			continue
		}
		if !errors.Is(err, ErrInvalidRole) {
			t.Errorf("ValidateRole(%q) = %v, want ErrInvalidRole", tt.role, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.rule) {
			t.Errorf("ValidateRole(%q) = %q, want the rule %q named", tt.role, err, tt.rule)
		}
	}
}

func TestIsStrictSubrole(t *testing.T) {
	tests := []struct {
		child, parent string
		want          bool
	}{
		{"a/b", "a", true},
		{"a/b/c", "a", true},
		{"a/b/c", "a/b", true},
		{"a", "a", false},
		{"ab", "a", false},
		{"ab/c", "a", false},
		{"a", "a/b", false},
		{"a/", "a", false},
		{"b/a", "a", false},
		{"a", "*", false},
		{"*/a", "*", false},
		{"a", "", false},
		{"/a", "", false},
	}
	for _, tt := range tests {
		if got := IsStrictSubrole(tt.child, tt.parent); got != tt.want {
			t.Errorf("IsStrictSubrole(%q, %q) = %v, want %v", tt.child, tt.parent, got, tt.want)
		}
		if got := IsSubroleOrSelf(tt.child, tt.parent); got != (tt.want || tt.child == tt.parent) {
			t.Errorf("IsSubroleOrSelf(%q, %q) = %v", tt.child, tt.parent, got)
		}
	}
}

func TestParentAncestorsTopLevel(t *testing.T) {
	tests := []struct {
		role      string
		parent    string
		hasParent bool
		ancestors []string
		top       string
	}{
		{"a", "", false, nil, "a"},
		{"*", "", false, nil, "*"},
		{"a/b", "a", true, []string{"a"}, "a"},
		{"a/b/c", "a/b", true, []string{"a/b", "a"}, "a"},
		{"eng/backend/db/x", "eng/backend/db", true, []string{"eng/backend/db", "eng/backend", "eng"}, "eng"},
	}
	for _, tt := range tests {
		p, ok := Parent(tt.role)
		if p != tt.parent || ok != tt.hasParent {
			t.Errorf("Parent(%q) = %q, %v; want %q, %v", tt.role, p, ok, tt.parent, tt.hasParent)
		}
		if got := Ancestors(tt.role); !slices.Equal(got, tt.ancestors) {
			t.Errorf("Ancestors(%q) = %q, want %q", tt.role, got, tt.ancestors)
		}
		if got := TopLevel(tt.role); got != tt.top {
			t.Errorf("TopLevel(%q) = %q, want %q", tt.role, got, tt.top)
		}
		for _, a := range Ancestors(tt.role) {
			if !IsStrictSubrole(tt.role, a) {
				t.Errorf("%q is not a strict sub-role of its ancestor %q", tt.role, a)
			}
		}
	}
}

func FuzzValidateRole(f *testing.F) {
	for _, s := range []string{"*", "a/b", "a//b", "-a", "a/./b", "a\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, role string) {
		err := ValidateRole(role)
		if err != nil {
			if !errors.Is(err, ErrInvalidRole) {
				t.Fatalf("error %v does not wrap ErrInvalidRole", err)
			}
			return
		}
		if role == Any {
			return
		}
		// A valid role's ancestors are valid and the role is below each.
		for _, a := range Ancestors(role) {
			if ValidateRole(a) != nil || !IsStrictSubrole(role, a) {
				t.Fatalf("ancestor %q of valid role %q is invalid or not above it", a, role)
			}
		}
		if ValidateRole(role+"/x") != nil {
			t.Fatalf("child of valid role %q is invalid", role)
		}
	})
}
