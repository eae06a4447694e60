package reservation

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Any is the role of unreserved resources and the default role of frameworks
// that name none. It can never be reserved for.
const Any = "*"

// ValidateRole reports whether role is a valid role name, with Mesos's rules:
// "*" is valid; otherwise the name is a "/"-separated path whose components
// are non-empty, are not ".", ".." or "*", do not start with "-", and contain
// no whitespace or control characters. The error wraps ErrInvalidRole.
func ValidateRole(role string) error {
	if role == Any {
		return nil
	}
	if role == "" {
		return fmt.Errorf("%w: empty name", ErrInvalidRole)
	}
	if !utf8.ValidString(role) {
		return fmt.Errorf("%w %q: not valid UTF-8", ErrInvalidRole, role)
	}
	if strings.HasPrefix(role, "/") {
		return fmt.Errorf("%w %q: starts with '/'", ErrInvalidRole, role)
	}
	if strings.HasSuffix(role, "/") {
		return fmt.Errorf("%w %q: ends with '/'", ErrInvalidRole, role)
	}
	for _, c := range role {
		if unicode.IsSpace(c) || unicode.IsControl(c) {
			return fmt.Errorf("%w %q: contains whitespace or control character %q", ErrInvalidRole, role, c)
		}
	}
	for component := range strings.SplitSeq(role, "/") {
		switch {
		case component == "":
			return fmt.Errorf("%w %q: contains '//'", ErrInvalidRole, role)
		case component == "." || component == ".." || component == "*":
			return fmt.Errorf("%w %q: component %q is reserved", ErrInvalidRole, role, component)
		case component[0] == '-':
			return fmt.Errorf("%w %q: component %q starts with '-'", ErrInvalidRole, role, component)
		}
	}
	return nil
}

// IsStrictSubrole reports whether child lies strictly below parent in the role
// hierarchy: "a/b" and "a/b/c" are strict sub-roles of "a"; "a" is not a
// strict sub-role of itself, and "ab" is not one of "a". Nothing is a sub-role
// of "*", which is not part of the hierarchy.
func IsStrictSubrole(child, parent string) bool {
	return len(child) > len(parent)+1 && child[len(parent)] == '/' && strings.HasPrefix(child, parent) && parent != Any && parent != ""
}

// IsSubroleOrSelf reports whether role equals ancestor or is a strict sub-role
// of it.
func IsSubroleOrSelf(role, ancestor string) bool {
	return role == ancestor || IsStrictSubrole(role, ancestor)
}

// Parent returns the parent of a hierarchical role ("a/b" for "a/b/c") and
// true, or "" and false for a top-level role.
func Parent(role string) (string, bool) {
	i := strings.LastIndexByte(role, '/')
	if i < 0 {
		return "", false
	}
	return role[:i], true
}

// Ancestors returns the strict ancestors of role, nearest first: "a/b/c" has
// ancestors ["a/b", "a"]. A top-level role has none.
func Ancestors(role string) []string {
	var out []string
	for {
		parent, ok := Parent(role)
		if !ok {
			return out
		}
		out = append(out, parent)
		role = parent
	}
}

// TopLevel returns the first component of role ("a" for "a/b/c").
func TopLevel(role string) string {
	if i := strings.IndexByte(role, '/'); i >= 0 {
		return role[:i]
	}
	return role
}
