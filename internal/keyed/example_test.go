package keyed_test

import (
	"fmt"
	"slices"

	"github.com/allot-go/allot/internal/keyed"
)

type framework struct {
	id   string
	role string
}

// byID keys a framework by its id.
type byID struct{}

func (byID) Of(f *framework) string { return f.id }

func Example() {
	var t keyed.Table[framework, byID]
	t.Put(&framework{id: "f1", role: "web"})
	t.Put(&framework{id: "f2", role: "batch"})
	old := t.Put(&framework{id: "f1", role: "api"}) // replaces f1
	fmt.Println(old.role, t.Get("f1").role, t.Len())

	t.Delete("f2")
	var ids []string
	for f := range t.All() { // in no particular order
		ids = append(ids, f.id)
	}
	slices.Sort(ids)
	fmt.Println(ids, t.Get("f2") == nil)
	// Output:
	// web api 2
	// [f1] true
}
