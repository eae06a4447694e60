package allocator

import (
	"github.com/allot-go/allot/resources"
)

func setOrDelete(m map[string]resources.Resources, key string, v resources.Resources) {
	if v.IsEmpty() {
		delete(m, key)
		return
	}
	m[key] = v
}
