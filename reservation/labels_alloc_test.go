package reservation

import "testing"

// Comparing sorted labels, as resources keeps them, allocates nothing.
func TestLabelsEqualSortedAllocatesNothing(t *testing.T) {
	a := Labels{{Key: "id", Value: "r1"}, {Key: "team", Value: "x"}}
	b := Labels{{Key: "id", Value: "r2"}, {Key: "team", Value: "x"}}
	if a.Equal(b) {
		t.Fatal("different labels compare equal")
	}
	if n := testing.AllocsPerRun(100, func() { _ = a.Equal(b) }); n != 0 {
		t.Errorf("Equal allocates %v times", n)
	}
	// Unsorted labels still compare as sets.
	c := Labels{{Key: "team", Value: "x"}, {Key: "id", Value: "r1"}}
	if !a.Equal(c) || !c.Equal(a) {
		t.Error("labels in another order compare unequal")
	}
}
