package resources_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/allot-go/allot/resources"
)

var sentinels = []error{
	resources.ErrInvalidScalar, resources.ErrInvalidRanges, resources.ErrInvalidSet,
	resources.ErrInvalidName, resources.ErrInvalidReservation, resources.ErrInvalidDisk,
	resources.ErrInvalidShared, resources.ErrInvalidRole, resources.ErrMixedTypes,
	resources.ErrSyntax, resources.ErrInvalidQuantities, resources.ErrNotReserved,
}

func checkError(t *testing.T, input string, r resources.Resources, err error) {
	t.Helper()
	for _, s := range sentinels {
		if errors.Is(err, s) {
			if !r.IsEmpty() {
				t.Fatalf("%q: error %v together with %v", input, err, r)
			}
			return
		}
	}
	t.Fatalf("%q: error %v wraps no sentinel of the package", input, err)
}

// checkAccepted checks what every accepted input must satisfy: text and JSON
// round trips, field for field, and basic arithmetic.
func checkAccepted(t *testing.T, input string, r resources.Resources) {
	t.Helper()
	text := r.String()
	back, err := resources.Parse(text, "*")
	if err != nil {
		t.Fatalf("%q was accepted as %q, which does not parse: %v", input, text, err)
	}
	if !identical(back, r) || back.String() != text {
		t.Fatalf("%q: text round trip changed %q into %q", input, text, back)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("%q: marshal: %v", input, err)
	}
	var fromJSON resources.Resources
	if err := json.Unmarshal(data, &fromJSON); err != nil {
		t.Fatalf("%q: JSON %s does not unmarshal: %v", input, data, err)
	}
	if !identical(fromJSON, r) {
		t.Fatalf("%q: JSON round trip changed %q into %q", input, text, fromJSON)
	}
	if !r.Contains(r) || !r.Minus(r).IsEmpty() || !r.Plus(r).Contains(r) {
		t.Fatalf("%q: %q breaks the arithmetic laws", input, text)
	}
	for x := range r.All() {
		if err := x.Validate(); err != nil || x.IsEmpty() {
			t.Fatalf("%q: accepted an invalid or empty entry %v: %v", input, x, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"cpus(roleA):4;mem:2048;ports:[31000-32000];disks:{sda1}",
		"cpus:1.5015;gpus:0;ports:[20-30,31-39,40-40]",
		"cpus(allocated: web)(reservations: [(STATIC,web), (DYNAMIC,web/a,ops,{team: a, k2})]):4",
		"disk(reservations: [(DYNAMIC,db,ops)])[MOUNT:/m,id:pg,principal:ops,path:data,mode:RO]<SHARED>:1024<2>",
		`disk[RAW(id:r1)]:5;cpus{REV}:2;mem(provider: "rp 1"):64;disks:{"a b",c}`,
		"foo(role1):1;foo(role2):[0-1]",
		"cpus(role1:1",
		`[{"name":"cpus","type":"SCALAR","scalar":{"value":1},"role":"r","reservation":{"principal":"p"}}]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(fuzzParse)
}

// fuzzParse checks one input of FuzzParse: Parse never panics, refuses with
// one of the package's errors, or accepts what round-trips.
func fuzzParse(t *testing.T, text string) {
	for _, role := range []string{"*", "fuzz/role"} {
		r, err := resources.Parse(text, role)
		if err != nil {
			checkError(t, text, r, err)
			continue
		}
		checkAccepted(t, text, r)
	}
	if q, err := resources.ParseQuantities(text); err == nil {
		back, err := resources.ParseQuantities(q.String())
		if err != nil || !back.Equal(q) {
			t.Fatalf("quantities %q: %q does not parse back: %v", text, q, err)
		}
	}
	if l, err := resources.ParseLimits(text); err == nil {
		back, err := resources.ParseLimits(l.String())
		if err != nil || !back.Equal(l) {
			t.Fatalf("limits %q: %q does not parse back: %v", text, l, err)
		}
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, seed := range []string{
		`[]`,
		`[{"name":"cpus","type":"SCALAR","scalar":{"value":1.5}}]`,
		`[{"name":"ports","type":"RANGES","ranges":{"range":[{"begin":1,"end":5},{"begin":7,"end":9}]}}]`,
		`[{"name":"disks","type":"SET","set":{"item":["a","b"]}}]`,
		`[{"name":"cpus","type":"SCALAR","scalar":{"value":1},"role":"r","reservation":{"principal":"p","labels":{"labels":[{"key":"k","value":"v"}]}}}]`,
		`[{"name":"disk","type":"SCALAR","scalar":{"value":10},"reservations":[{"type":"STATIC","role":"a"},{"type":"DYNAMIC","role":"a/b","principal":"p"}],` +
			`"disk":{"source":{"type":"MOUNT","mount":{"root":"/m"}},"persistence":{"id":"v","principal":"p"},"volume":{"container_path":"d","mode":"RW"}},"shared":{}}]`,
		`[{"name":"cpus","type":"SCALAR","scalar":{"value":1},"revocable":{},"provider_id":{"value":"rp"},"allocation_info":{"role":"x"}}]`,
		`[{"name":"cpus","type":"SCALAR","scalar":{"value":-1}}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r resources.Resources
		if err := json.Unmarshal(data, &r); err != nil {
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				return // not JSON at all: encoding/json's error
			}
			checkError(t, string(data), r, err)
			return
		}
		checkAccepted(t, string(data), r)
	})
}
