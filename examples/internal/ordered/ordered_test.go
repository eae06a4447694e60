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
