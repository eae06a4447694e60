package resources

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestJSONShape(t *testing.T) {
	r := mustParse(t, "cpus(reservations: [(STATIC,a), (DYNAMIC,a/b,p,{k: v, x})]){REV}:1.5;"+
		"disk(reservations: [(DYNAMIC,a,p)])[MOUNT:/m,id:vol,principal:p,path:data,mode:RO]<SHARED>:10<2>;"+
		"ports(allocated: web)(provider: rp):[1-2, 4-4];disks:{a,b}")
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `[` +
		`{"name":"cpus","type":"SCALAR","scalar":{"value":1.5},"reservations":[{"type":"STATIC","role":"a"},{"type":"DYNAMIC","role":"a/b","principal":"p","labels":{"labels":[{"key":"k","value":"v"},{"key":"x"}]}}],"revocable":{}},` +
		`{"name":"disk","type":"SCALAR","scalar":{"value":10},"reservations":[{"type":"DYNAMIC","role":"a","principal":"p"}],"disk":{"source":{"type":"MOUNT","mount":{"root":"/m"}},"persistence":{"id":"vol","principal":"p"},"volume":{"container_path":"data","mode":"RO"}},"shared":{}},` +
		`{"name":"disk","type":"SCALAR","scalar":{"value":10},"reservations":[{"type":"DYNAMIC","role":"a","principal":"p"}],"disk":{"source":{"type":"MOUNT","mount":{"root":"/m"}},"persistence":{"id":"vol","principal":"p"},"volume":{"container_path":"data","mode":"RO"}},"shared":{}},` +
		`{"name":"ports","type":"RANGES","ranges":{"range":[{"begin":1,"end":2},{"begin":4,"end":4}]},"provider_id":{"value":"rp"},"allocation_info":{"role":"web"}},` +
		`{"name":"disks","type":"SET","set":{"item":["a","b"]}}]`
	if string(data) != want {
		t.Errorf("JSON\n got %s\nwant %s", data, want)
	}
	var back Resources
	if err := json.Unmarshal(data, &back); err != nil || back.String() != r.String() {
		t.Errorf("round trip: %v, %v", back, err)
	}
	if data, _ := json.Marshal(Resources{}); string(data) != "[]" {
		t.Errorf("empty marshals to %s", data)
	}
}

func TestJSONRead(t *testing.T) {
	const cpus = `"name":"cpus","type":"SCALAR","scalar":{"value":1}`
	tests := []struct {
		name, in, role, want string
	}{
		{"empty", `[]`, "*", "{}"},
		{"blanks", " \n [ ] \n", "*", "{}"},
		{"default role", `[{` + cpus + `}]`, "prod", "cpus(prod):1"},
		{"star role", `[{` + cpus + `,"role":"*"}]`, "prod", "cpus:1"},
		{"legacy static", `[{` + cpus + `,"role":"r"}]`, "*", "cpus(r):1"},
		{"legacy dynamic", `[{` + cpus + `,"role":"r","reservation":{"principal":"p","labels":{"labels":[{"key":"k","value":"v"}]}}}]`, "*",
			"cpus(reservations: [(DYNAMIC,r,p,{k: v})]):1"},
		{"legacy dynamic, empty", `[{` + cpus + `,"role":"r","reservation":{}}]`, "*", "cpus(reservations: [(DYNAMIC,r)]):1"},
		{"endpoint form", `[{` + cpus + `,"role":"r","reservation":{"principal":"p"},"reservations":[{"type":"DYNAMIC","role":"r","principal":"p"}]}]`, "*",
			"cpus(reservations: [(DYNAMIC,r,p)]):1"},
		{"refined, default role ignored", `[{` + cpus + `,"reservations":[{"type":"STATIC","role":"a"},{"type":"DYNAMIC","role":"a/b"}]}]`, "x",
			"cpus(reservations: [(STATIC,a), (DYNAMIC,a/b)]):1"},
		{"string number", `[{"name":"cpus","type":"SCALAR","scalar":{"value":"1.5015"}}]`, "*", "cpus:1.502"},
		{"zero dropped", `[{"name":"cpus","type":"SCALAR","scalar":{"value":0}}]`, "*", "{}"},
		{"unsorted ranges", `[{"name":"ports","type":"RANGES","ranges":{"range":[{"begin":7,"end":9},{"begin":1,"end":6}]}}]`, "*", "ports:[1-9]"},
		{"full range", `[{"name":"ports","type":"RANGES","ranges":{"range":[{"begin":0,"end":18446744073709551615}]}}]`, "*", "ports:[0-18446744073709551615]"},
		{"shared copies", `[{"name":"disk","type":"SCALAR","scalar":{"value":1},"role":"a","disk":{"persistence":{"id":"v"},"volume":{"container_path":"p","mode":"RW"}},"shared":{}},` +
			`{"name":"disk","type":"SCALAR","scalar":{"value":1},"role":"a","disk":{"persistence":{"id":"v"},"volume":{"container_path":"p","mode":"RW"}},"shared":{}}]`, "*",
			"disk(a)[id:v,path:p]<SHARED>:1<2>"},
		{"empty disk object", `[{"name":"disk","type":"SCALAR","scalar":{"value":1},"disk":{}}]`, "*", "disk:1"},
	}
	for _, tt := range tests {
		r, err := Parse(tt.in, tt.role)
		if err != nil || r.String() != tt.want {
			t.Errorf("%s: Parse = %v, %v; want %s", tt.name, r, err, tt.want)
		}
	}
}

func TestUnmarshalNull(t *testing.T) {
	r := mustParse(t, "cpus:1")
	if err := json.Unmarshal([]byte("null"), &r); err != nil || r.String() != "cpus:1" {
		t.Errorf("Unmarshal(null) = %v, %v", r, err)
	}
}

func TestJSONErrors(t *testing.T) {
	const cpus = `"name":"cpus","type":"SCALAR","scalar":{"value":1}`
	tests := []struct {
		in   string
		err  error
		rule string
	}{
		{`[`, ErrSyntax, "JSON"},
		{`[]]`, ErrSyntax, "data after the array"},
		{`[] []`, ErrSyntax, "data after the array"},
		{`[{"name":"cpus","type":"SCALAR","scalar":{"value":-1}}]`, ErrInvalidScalar, "negative"},
		{`[{"name":"cpus","type":"SCALAR","scalar":{"value":"x"}}]`, ErrSyntax, "JSON"},
		{`[{"name":"cpus","type":"SCALAR","scalar":{}}]`, ErrInvalidScalar, "missing value"},
		{`[{"name":"cpus","type":"SCALAR"}]`, ErrMixedTypes, "without scalar value"},
		{`[{"name":"cpus","type":"TEXT","scalar":{"value":1}}]`, ErrMixedTypes, "unknown type"},
		{`[{"name":"cpus","type":"SCALAR","scalar":{"value":1},"set":{"item":["a"]}}]`, ErrMixedTypes, "more than one value"},
		{`[{"name":"","type":"SCALAR","scalar":{"value":1}}]`, ErrInvalidName, "empty name"},
		{`[{"name":"ports","type":"RANGES","ranges":{"range":[{"begin":5,"end":1}]}}]`, ErrInvalidRanges, "begins after it ends"},
		{`[{"name":"ports","type":"RANGES","ranges":{"range":[{"begin":1,"end":5},{"begin":5,"end":6}]}}]`, ErrInvalidRanges, "overlap"},
		{`[{"name":"disks","type":"SET","set":{"item":["a","a"]}}]`, ErrInvalidSet, "duplicate"},
		{`[{` + cpus + `},{"name":"cpus","type":"SET","set":{"item":["a"]}}]`, ErrMixedTypes, "cpus is both SCALAR and SET"},
		{`[{"name":"cpus","type":"SCALAR","scalar":{"value":0}},{"name":"cpus","type":"SET","set":{"item":["a"]}}]`, ErrMixedTypes, "both"},
		{`[{` + cpus + `,"role":"a//b"}]`, ErrInvalidRole, "'//'"},
		{`[{` + cpus + `,"role":"*","reservation":{"principal":"p"}}]`, ErrInvalidReservation, "unreserved"},
		{`[{` + cpus + `,"reservation":{"principal":"p"}}]`, ErrInvalidReservation, "unreserved"},
		{`[{` + cpus + `,"role":"a","reservations":[{"type":"DYNAMIC","role":"b"}]}]`, ErrInvalidReservation, "does not match"},
		{`[{` + cpus + `,"reservations":[{"type":"DYNAMIC","role":"*"}]}]`, ErrInvalidReservation, "'*' cannot be reserved"},
		{`[{` + cpus + `,"reservations":[{"type":"STATIC","role":"a"},{"type":"STATIC","role":"a/b"}]}]`, ErrInvalidReservation, "not dynamic"},
		{`[{` + cpus + `,"reservations":[{"type":"DYNAMIC","role":"a"},{"type":"DYNAMIC","role":"b"}]}]`, ErrInvalidReservation, "not a strict sub-role"},
		{`[{` + cpus + `,"reservations":[{"role":"a"}]}]`, ErrInvalidReservation, "unknown reservation type"},
		{`[{` + cpus + `,"shared":{}}]`, ErrInvalidShared, "not a persistent volume"},
		{`[{"name":"disk","type":"SCALAR","scalar":{"value":1},"disk":{"source":{"type":"NFS"}}}]`, ErrInvalidDisk, "unknown source type"},
		{`[{"name":"disk","type":"SCALAR","scalar":{"value":1},"disk":{"source":{"type":"PATH","mount":{"root":"/m"}}}}]`, ErrInvalidDisk, "another type"},
		{`[{"name":"disk","type":"SCALAR","scalar":{"value":1},"role":"a","disk":{"persistence":{"id":"v"},"volume":{"container_path":"p","mode":"RX"}}}]`, ErrInvalidDisk, "unknown volume mode"},
		{`[{"name":"disk","type":"SCALAR","scalar":{"value":1},"role":"a","disk":{"persistence":{"id":"a/b"}}}]`, ErrInvalidDisk, "path separator"},
		{`[{` + cpus + `,"allocation_info":{}}]`, ErrInvalidRole, "without role"},
		{`[{` + cpus + `,"allocation_info":{"role":"-x"}}]`, ErrInvalidRole, "starts with '-'"},
	}
	for _, tt := range tests {
		r, err := Parse(tt.in, "*")
		if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.rule) {
			t.Errorf("Parse(%s) = %v, %v; want %v naming %q", tt.in, r, err, tt.err, tt.rule)
			continue
		}
		var u Resources
		u.Add(mustParse(t, "mem:1"))
		if err := json.Unmarshal([]byte(tt.in), &u); err == nil || u.String() != "mem:1" {
			t.Errorf("Unmarshal(%s) = %v and changed the receiver to %v", tt.in, err, u)
		}
	}
}
