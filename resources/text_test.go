package resources

import (
	"errors"
	"strings"
	"testing"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/volume"
)

func mustParse(t *testing.T, text string) Resources {
	t.Helper()
	r, err := Parse(text, "*")
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	return r
}

// TestParsePrint holds the reference's examples and every field String
// prints: text in, canonical text out, and the canonical text parses to
// itself.
func TestParsePrint(t *testing.T) {
	tests := []struct {
		in, role, want string
	}{
		{"", "*", "{}"},
		{"{}", "*", "{}"},
		{"  ;; ", "*", "{}"},
		{"cpus:4", "*", "cpus:4"},
		{"cpus(roleA):4;mem:2048;ports:[31000-32000]", "*", "cpus(roleA):4; mem:2048; ports:[31000-32000]"},
		{"cpus(roleA):4;mem:2048;ports:[31000-32000];disks:{sda1}", "*", "cpus(roleA):4; mem:2048; ports:[31000-32000]; disks:{sda1}"},
		// Default role: entries without one take it, "*" stays unreserved.
		{"cpus:4;mem(*):2", "prod", "cpus(prod):4; mem:2"},
		{"cpus:4", "", "cpus:4"},
		// Fixed point: three decimals, half away from zero.
		{"cpus:1.5015", "*", "cpus:1.502"},
		{"cpus:1.5011", "*", "cpus:1.501"},
		{"cpus:0.0005", "*", "cpus:0.001"},
		{"mem:1e3", "*", "mem:1000"},
		{"cpus:2.000", "*", "cpus:2"},
		// Zero amounts and empty values are dropped.
		{"gpus:0", "*", "{}"},
		{"cpus:1;gpus:0;ports:[];disks:{}", "*", "cpus:1"},
		// Ranges coalesce; sets are sorted.
		{"ports:[20-30,31-39,40-40]", "*", "ports:[20-40]"},
		{"ports:[40-40, 20-30, 31-39, 50-60]", "*", "ports:[20-40, 50-60]"},
		{"ports:[0-18446744073709551615]", "*", "ports:[0-18446744073709551615]"},
		{"disks:{sdb,sda}", "*", "disks:{sda,sdb}"},
		// Same kind merges, as in Mesos.
		{"cpus:1;cpus:2.5;cpus(a):1", "*", "cpus:3.5; cpus(a):1"},
		{"ports:[1-5];ports:[6-10]", "*", "ports:[1-10]"},
		{"disks:{a};disks:{b}", "*", "disks:{a,b}"},
		// Whitespace around tokens.
		{" cpus : 4 ; mem ( a ) : 2 ", "*", "cpus:4; mem(a):2"},
		// Every field String prints.
		{"cpus(allocated: web)(reservations: [(DYNAMIC,web,ops,{team: a, k2})]):4", "*",
			"cpus(allocated: web)(reservations: [(DYNAMIC,web,ops,{k2, team: a})]):4"},
		{"cpus(reservations: [(STATIC,alice), (DYNAMIC,alice/refined,principal,{k: v, k2})]):1", "*",
			"cpus(reservations: [(STATIC,alice), (DYNAMIC,alice/refined,principal,{k: v, k2})]):1"},
		{"cpus(reservations: [(STATIC,a)]):1", "*", "cpus(a):1"},
		{"cpus(reservations: [(DYNAMIC,a,,{})]):1", "*", "cpus(reservations: [(DYNAMIC,a,,{})]):1"},
		{"cpus(reservations: [(DYNAMIC,a)]):1", "*", "cpus(reservations: [(DYNAMIC,a)]):1"},
		{"disk(reservations: [(DYNAMIC,db,ops)])[id:pg,principal:ops,path:data]<SHARED>:1024<2>", "*",
			"disk(reservations: [(DYNAMIC,db,ops)])[id:pg,principal:ops,path:data]<SHARED>:1024<2>"},
		{"disk(a)[MOUNT:/mnt,id:v,path:/data,mode:RO]:10", "*", "disk(a)[MOUNT:/mnt,id:v,path:/data,mode:RO]:10"},
		{"disk[MOUNT:/mnt/ssd]:4096; cpus{REV}:2; mem(provider: rp1):64", "*", "disk[MOUNT:/mnt/ssd]:4096; cpus{REV}:2; mem(provider: rp1):64"},
		{"disk[RAW(id:r1)]:5;disk[BLOCK]:6;disk[PATH:/p]:7", "*", "disk[RAW(id:r1)]:5; disk[BLOCK]:6; disk[PATH:/p]:7"},
		// Quoting of words with special characters.
		{`cpus("a(b)"):1`, "*", `cpus("a(b)"):1`},
		{`cpus(reservations: [(DYNAMIC,a,"o p",{"k:1": "v, w"})]):1`, "*", `cpus(reservations: [(DYNAMIC,a,"o p",{"k:1": "v, w"})]):1`},
		{`disks:{"a b","c;d",e}`, "*", `disks:{"a b","c;d",e}`},
	}
	for _, tt := range tests {
		r, err := Parse(tt.in, tt.role)
		if err != nil {
			t.Errorf("Parse(%q, %q): %v", tt.in, tt.role, err)
			continue
		}
		if got := r.String(); got != tt.want {
			t.Errorf("Parse(%q, %q) prints %q, want %q", tt.in, tt.role, got, tt.want)
		}
		back, err := Parse(r.String(), "*")
		if err != nil || back.String() != r.String() || !back.Equal(r) {
			t.Errorf("%q does not parse back to itself: %v, %v", r.String(), back, err)
		}
	}
}

func TestParseMeaning(t *testing.T) {
	r := mustParse(t, "cpus(roleA):4;mem:2048;ports:[31000-32000]")
	cpus := r.Get("cpus").Slice()
	if len(cpus) != 1 || cpus[0].Scalar != Units(4) || cpus[0].Role() != "roleA" ||
		!cpus[0].Reservations.Equal(reservation.Stack{{Type: reservation.Static, Role: "roleA"}}) {
		t.Errorf("cpus(roleA):4 parsed as %#v", cpus)
	}
	if mem := r.Get("mem").Slice(); len(mem) != 1 || mem[0].IsReserved() || mem[0].Scalar != Units(2048) {
		t.Errorf("mem:2048 parsed as %#v", mem)
	}
	if ports := r.Get("ports").Slice(); len(ports) != 1 || ports[0].Type != RangesType ||
		len(ports[0].Ranges) != 1 || ports[0].Ranges[0] != (Range{31000, 32000}) {
		t.Errorf("ports parsed as %#v", ports)
	}
	v := mustParse(t, "disk(reservations: [(DYNAMIC,db,ops)])[MOUNT:/m,id:pg,principal:ops,path:data]<SHARED>:1024<3>").Slice()[0]
	want := &volume.Disk{
		Source:      &volume.Source{Type: volume.Mount, Root: "/m"},
		Persistence: &volume.Persistence{ID: "pg", Principal: "ops"},
		Volume:      &volume.Volume{ContainerPath: "data", Mode: volume.RW},
	}
	if !v.Shared || !v.Disk.Equal(want) || v.Disk.Persistence.Principal != "ops" || *v.Disk.Volume != *want.Volume || v.Role() != "db" {
		t.Errorf("volume parsed as %#v", v)
	}
	if n := mustParse(t, "disk(reservations: [(DYNAMIC,db,ops)])[id:pg,path:data]<SHARED>:1024<3>").Copies(v); n != 0 {
		t.Errorf("a volume on another source shares copies: %d", n)
	}
	shared := mustParse(t, "disk(reservations: [(DYNAMIC,db,ops)])[id:pg,path:data]<SHARED>:1024<3>")
	if n := shared.Copies(shared.Slice()[0]); n != 3 {
		t.Errorf("copies = %d, want 3", n)
	}
}

// TestParseErrors checks that each invalid input fails with the right
// sentinel and a message naming the token and the rule.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		err  error
		rule string
	}{
		{"cpus:-1", ErrInvalidScalar, "negative"},
		{"cpus:NaN", ErrInvalidScalar, "not a decimal"},
		{"cpus:inf", ErrInvalidScalar, "not a decimal"},
		{"cpus:1e400", ErrInvalidScalar, "not a number"},
		{"cpus:0x10", ErrInvalidScalar, "not a decimal"},
		{"cpus:0.00001", ErrInvalidScalar, "rounds to zero"},
		{"cpus:1e-400", ErrInvalidScalar, "rounds to zero"},
		{"cpus:2e15", ErrInvalidScalar, "too large"},
		{"cpus:", ErrInvalidScalar, "missing value"},
		{"cpus:1.2.3", ErrInvalidScalar, "not a number"},
		{"ports:[5-1]", ErrInvalidRanges, "begins after it ends"},
		{"ports:[1-5,3-7]", ErrInvalidRanges, "overlap"},
		{"ports:[1-5,5-7]", ErrInvalidRanges, "overlap"},
		{"ports:[1-x]", ErrInvalidRanges, "bad range"},
		{"ports:[-1-5]", ErrInvalidRanges, "bad range"},
		{"ports:[1-18446744073709551616]", ErrInvalidRanges, "bad range"},
		{"disks:{a,a}", ErrInvalidSet, "duplicate item"},
		{`disks:{a,""}`, ErrInvalidSet, "empty item"},
		{"cpus(-x):1", ErrInvalidRole, "starts with '-'"},
		{"cpus(a//b):1", ErrInvalidRole, "'//'"},
		{"cpus(reservations: [(DYNAMIC,*)]):1", ErrInvalidReservation, "'*' cannot be reserved"},
		{"cpus(reservations: [(DYNAMIC,a), (STATIC,a/b)]):1", ErrInvalidReservation, "not dynamic"},
		{"cpus(reservations: [(DYNAMIC,a), (DYNAMIC,b)]):1", ErrInvalidReservation, "not a strict sub-role"},
		{"cpus(reservations: [(DYNAMIC,a/b), (DYNAMIC,a)]):1", ErrInvalidReservation, "not a strict sub-role"},
		{"cpus(reservations: [(LOCAL,a)]):1", ErrSyntax, "STATIC or DYNAMIC"},
		{"cpus<SHARED>:1", ErrInvalidShared, "not a persistent volume"},
		{"disk(a)<SHARED>:1", ErrInvalidShared, "not a persistent volume"},
		{"cpus(role1:1", ErrSyntax, "mismatched parentheses"},
		{"cpus)role1(:1", ErrSyntax, "mismatched parentheses"},
		{"cpus(a)(b):1", ErrSyntax, "two roles"},
		{"foo(role1):1;foo(role2):[0-1]", ErrMixedTypes, "foo is both SCALAR and RANGES"},
		{"gpus:0;gpus:[1-2]", ErrMixedTypes, "gpus is both SCALAR and RANGES"},
		{"disks:{a};disks:[1-2]", ErrMixedTypes, "both SET and RANGES"},
		{"cpus", ErrSyntax, "expected ':'"},
		{"cpus:1 mem:2", ErrSyntax, "expected ';'"},
		{":1", ErrSyntax, "expected a resource name"},
		{"cpus[MOUNT:/m]:1", ErrInvalidDisk, "not disk"},
		{"disk[]:1", ErrSyntax, "empty disk"},
		{"disk[MOUNT]:1", ErrInvalidDisk, "needs a root"},
		{"disk(a)[id:..,path:p]:1", ErrInvalidDisk, "reserved name"},
		{"disk(a)[path:p]:1", ErrSyntax, "before the persistence id"},
		{"disk(a)[id:v,mode:XX]:1", ErrSyntax, "unknown volume mode"},
		{"disk(a)[id:v,size:3]:1", ErrSyntax, "unknown disk key"},
		{"disk(a)[id:v,path:p]<SHARED>:1<0>", ErrSyntax, "bad copy count"},
		{"disk(a)[id:v,path:p]:1<2>", ErrSyntax, "not shared"},
		{`cpus("a:1`, ErrSyntax, "bad quoted string"},
		{"cpus(allocated: a//b):1", ErrInvalidRole, "'//'"},
	}
	for _, tt := range tests {
		r, err := Parse(tt.in, "*")
		if !errors.Is(err, tt.err) {
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.in, r, err, tt.err)
			continue
		}
		if !strings.Contains(err.Error(), tt.rule) {
			t.Errorf("Parse(%q) error %q does not name the rule %q", tt.in, err, tt.rule)
		}
		if !r.IsEmpty() {
			t.Errorf("Parse(%q) returned %v with an error", tt.in, r)
		}
	}
	// The offending token is named.
	_, err := Parse("cpus:1;mem:2;ports:[9-3];disk:5", "*")
	if err == nil || !strings.Contains(err.Error(), `"ports:[9-3]"`) {
		t.Errorf("error %q does not name the token", err)
	}
	if _, err := Parse("cpus:1", "a//b"); !errors.Is(err, ErrInvalidRole) {
		t.Errorf("bad default role: %v", err)
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse did not panic on bad input")
		}
	}()
	MustParse("cpus:-1", "*")
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":    "plain",
		"a/b.c-d_": "a/b.c-d_",
		"":         `""`,
		"a b":      `"a b"`,
		"a:b":      `"a:b"`,
		`a"b`:      `"a\"b"`,
		"a\x00":    `"a\x00"`,
		"ü":        "ü",
		"a\u00a0b": `"a\u00a0b"`,
		"\xff":     `"\xff"`,
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}
