package sorter

import (
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/allot-go/allot/resources"
)

// goldenState brings s to a small state that puts something in every field
// of the snapshot format: weights (one on a path with no node), allowances,
// added agents and one known only by a holding, active and inactive
// clients with counts, charges and holdings of several chunks and a shared
// volume, inner nodes with counts, and a free client number.
func goldenState(t *testing.T, s snapshotSorter) {
	t.Helper()
	q := resources.MustParseQuantities
	r := func(text string) resources.Resources { return resources.MustParse(text, "") }
	volume := "disk(role1)[id:vol1,path:data]<SHARED>:10"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.UpdateWeight("a", 2))
	must(s.UpdateWeight("x/y", 0.5))
	if al, ok := s.(Allowances); ok {
		must(al.SetAllowance("a/b", q("cpus:1")))
	}
	s.AddAgent("s2", q("cpus:4;mem:32"))
	s.AddAgent("s1", q("cpus:8;mem:64;disk:100"))
	s.AddAgent("s0", q("cpus:1"))
	must(s.RemoveAgent("s0"))
	for _, c := range []string{"a", "a/b", "a/b/c", "d", "e", "f/g"} {
		must(s.Add(c))
	}
	must(s.Remove("d"))
	for _, c := range []string{"a/b", "e", "f/g"} {
		must(s.Activate(c))
	}
	must(s.Allocated("a/b", "s1", r("cpus:1;mem:4")))
	must(s.Allocated("a/b", "s1", r("cpus:2")))
	must(s.Allocated("a/b", "s3", r(volume)))
	must(s.Allocated("e", "s1", r(volume+";ports:[31000-31004]")))
	must(s.Allocated("a/b/c", "s2", r("mem:8")))
	must(s.Unallocated("a/b/c", "s2", r("mem:8")))
	must(s.Charge("e", q("mem:2"), true))
	must(s.Charge("a", q("cpus:1"), false))
	_ = s.Sort()
}

// goldenSnapshots are the bytes MarshalBinary writes for goldenState, as
// hex. The format is saved by allocators and read back by later builds, so
// a change here must be a new snapshotVersion, never an accident.
var goldenSnapshots = map[string]string{
	"DRF": `
		530144020161000000000000004003782f79000000000000e03f0103612f6201
		000463707573e807020273310301c03e00036d656d80f40300046469736ba08d
		060273320201a01f0280fa010501610000000101e8070003612f620101030002
		0273310102000a637075733a302e30303100b81700096d656d3a302e30303100
		a01f0273330101002c6469736b28726f6c6531295b69643a766f6c312c706174
		683a646174615d3c5348415245443e3a302e30303100904e0105612f622f6302
		0001000001650401020102d00f010273310102002c6469736b28726f6c653129
		5b69643a766f6c312c706174683a646174615d3c5348415245443e3a302e3030
		3100904e01000b706f7274733a5b312d315d000198f2010403662f6705010000
		000301610403612f6204016600060103
	`,
	"Random": `
		530152020161000000000000004003782f79000000000000e03f000202733103
		000463707573c03e00036d656d80f40300046469736ba08d060273320201a01f
		0280fa010501610000000101e8070003612f6201010300020273310102000a63
		7075733a302e30303100b81700096d656d3a302e30303100a01f027333010100
		2c6469736b28726f6c6531295b69643a766f6c312c706174683a646174615d3c
		5348415245443e3a302e30303100904e0105612f622f63020001000001650401
		020102d00f010273310102002c6469736b28726f6c6531295b69643a766f6c31
		2c706174683a646174615d3c5348415245443e3a302e30303100904e01000b70
		6f7274733a5b312d315d000198f2010403662f6705010000000301610403612f
		6204016600060103147063673a56be97189f1a660d9b61b0f98bf44a1b
	`,
}

// TestSnapshotGolden pins the snapshot format byte for byte, and checks
// that the pinned bytes restore to a sorter that saves them again.
func TestSnapshotGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func() snapshotSorter
	}{
		{"DRF", func() snapshotSorter { return NewDRF(Config{Seed: 7}) }},
		{"Random", func() snapshotSorter { return NewRandom(Config{Seed: 7}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.make()
			goldenState(t, s)
			data, err := s.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			want, err := hex.DecodeString(strings.Join(strings.Fields(goldenSnapshots[tc.name]), ""))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(data, want) {
				t.Fatalf("MarshalBinary wrote\n%s\nwant\n%s", hexLines(data), hexLines(want))
			}
			restored := tc.make()
			if err := restored.UnmarshalBinary(want); err != nil {
				t.Fatal(err)
			}
			again, err := restored.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(again, want) {
				t.Fatalf("restored from the golden bytes, MarshalBinary wrote\n%s", hexLines(again))
			}
			if a, b := s.Sort(), restored.Sort(); !slices.Equal(a, b) {
				t.Fatalf("orders %q and %q after a restore", a, b)
			}
		})
	}
}

// hexLines renders b as hex, 32 bytes a line, the form goldenSnapshots
// keeps.
func hexLines(b []byte) string {
	var lines []string
	for len(b) > 0 {
		n := min(len(b), 32)
		lines = append(lines, "\t\t"+hex.EncodeToString(b[:n]))
		b = b[n:]
	}
	return strings.Join(lines, "\n")
}
