package prefetch_test

import (
	"fmt"
	"unsafe"

	"github.com/allot-go/allot/internal/prefetch"
)

type item struct {
	weight int
	_      [120]byte
}

// Visiting records in an order the hardware cannot guess, ask for the next
// one while working on this one. The results are the same without it.
func ExampleLines() {
	items := make([]item, 8)
	for i := range items {
		items[i].weight = i + 1
	}
	order := []int{5, 2, 7, 0, 3, 6, 1, 4}
	total := 0
	for i, at := range order {
		if i+1 < len(order) {
			prefetch.Lines(unsafe.Pointer(&items[order[i+1]]), unsafe.Sizeof(items[0]))
		}
		total += items[at].weight
	}
	fmt.Println(total)
	// Output: 36
}
