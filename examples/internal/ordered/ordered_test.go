package ordered

import (
	"testing"

	"github.com/allot-go/allot/resources"
)

func TestResources(t *testing.T) {
	rs := resources.MustParse("mem:64;disk(b):5;cpus:2;disk(a):7", "*")
	got := Resources(rs).String()
	want := "cpus:2; disk(a):7; disk(b):5; mem:64"
	if got != want {
		t.Fatalf("Resources(%s) = %s, want %s", rs, got, want)
	}
	if !Resources(rs).Equal(rs) {
		t.Fatalf("Resources(%s) changed the resources", rs)
	}
}

func TestByReservation(t *testing.T) {
	rs := resources.MustParse("mem(reservations: [(DYNAMIC,db,ops)]):64;cpus:2;cpus(reservations: [(DYNAMIC,db,ops)]):1;disk(a):7", "*")
	got := ByReservation(rs)
	want := "cpus:2 unreserved + cpus:1; mem:64 reserved [(DYNAMIC,db,ops)] + disk:7 reserved [(STATIC,a)]"
	if got != want {
		t.Fatalf("ByReservation(%s) =\n%s, want\n%s", rs, got, want)
	}
	if got := ByReservation(resources.Resources{}); got != "{}" {
		t.Fatalf("ByReservation of nothing = %q", got)
	}
}
