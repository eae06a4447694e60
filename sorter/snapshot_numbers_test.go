package sorter

import (
	"errors"
	"slices"
	"testing"

	"github.com/allot-go/allot/resources"
)

// A snapshot's free client numbers must lie below the count of numbers:
// one equal to the count is refused, not read past the numbering's end.
func TestSnapshotFreeNumberOutOfRange(t *testing.T) {
	d := NewDRF(Config{})
	_ = d.Add("a")
	_ = d.Add("b")
	_ = d.Remove("b")
	data, err := d.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// The numbering ends the snapshot: two numbers, one free, number 1.
	n := len(data)
	if data[n-3] != 2 || data[n-2] != 1 || data[n-1] != 1 {
		t.Fatalf("unexpected end of snapshot % x", data[n-3:])
	}
	if err := NewDRF(Config{}).UnmarshalBinary(data); err != nil {
		t.Fatalf("the snapshot as saved: %v", err)
	}
	data[n-1] = 2
	if err := NewDRF(Config{}).UnmarshalBinary(data); !errors.Is(err, ErrInvalidSnapshot) {
		t.Fatalf("free number 2 of 2: %v", err)
	}
}

// clientsAB returns the snapshot of a sorter of clients a and b, and
// where each name's only byte lies in it.
func clientsAB(t *testing.T) (data []byte, ia, ib int) {
	t.Helper()
	d := NewDRF(Config{})
	_ = d.Add("a")
	_ = d.Add("b")
	return namesAB(t, d)
}

// namesAB returns d's snapshot and where the only bytes 'a' and 'b' lie
// in it, in that order.
func namesAB(t *testing.T, d *DRF) (data []byte, ia, ib int) {
	t.Helper()
	data, err := d.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	ia, ib = -1, -1
	for i, c := range data {
		switch {
		case c == 'a' && ia < 0:
			ia = i
		case c == 'b' && ib < 0:
			ib = i
		case c == 'a' || c == 'b':
			t.Fatalf("a name's byte twice in % x", data)
		}
	}
	if ia < 0 || ib < ia {
		t.Fatalf("names a, b not found in order in % x", data)
	}
	return data, ia, ib
}

// Agents are listed once each too: agent a listed twice is refused, not
// added twice.
func TestSnapshotAgentListedTwice(t *testing.T) {
	d := NewDRF(Config{})
	d.AddAgent("a", resources.MustParseQuantities("cpus:1"))
	d.AddAgent("b", resources.MustParseQuantities("cpus:1"))
	data, _, ib := namesAB(t, d)
	data[ib] = 'a'
	if err := NewDRF(Config{}).UnmarshalBinary(data); !errors.Is(err, ErrInvalidSnapshot) {
		t.Fatalf("agent a listed twice: %v", err)
	}
}

// A snapshot lists its clients in ascending order, each once: a client
// listed twice is refused.
func TestSnapshotClientListedTwice(t *testing.T) {
	data, _, ib := clientsAB(t)
	data[ib] = 'a'
	if err := NewDRF(Config{}).UnmarshalBinary(data); !errors.Is(err, ErrInvalidSnapshot) {
		t.Fatalf("client a listed twice: %v", err)
	}
}

// Clients out of order are refused too: the reader relies on the order.
func TestSnapshotClientsOutOfOrder(t *testing.T) {
	data, ia, ib := clientsAB(t)
	data[ia], data[ib] = 'b', 'a'
	if err := NewDRF(Config{}).UnmarshalBinary(data); !errors.Is(err, ErrInvalidSnapshot) {
		t.Fatalf("clients b, a: %v", err)
	}
}

// A client's number must lie below the count of numbers and be its own:
// b (number 1 of 2) saved as number 2, or as a's number 0, is refused.
func TestSnapshotClientNumberOutOfRangeOrTaken(t *testing.T) {
	data, _, ib := clientsAB(t)
	if data[ib+1] != 1 {
		t.Fatalf("b's number is not the byte after its name: % x", data)
	}
	for _, number := range []byte{2, 0} {
		damaged := slices.Clone(data)
		damaged[ib+1] = number
		if err := NewDRF(Config{}).UnmarshalBinary(damaged); !errors.Is(err, ErrInvalidSnapshot) {
			t.Fatalf("client b numbered %d of 2: %v", number, err)
		}
	}
}
