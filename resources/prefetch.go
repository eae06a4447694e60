package resources

import (
	"unsafe"

	"github.com/allot-go/allot/internal/prefetch"
)

// Prefetch asks the processor to bring rs's entries into its caches ahead
// of a read. It changes nothing and returns nothing: a caller that visits
// many values in an order the hardware cannot guess (the allocator's
// shuffled agents) asks for the next one's entries while it works on this
// one. Ranges and sets kept out of line are not asked for. On
// architectures other than amd64, and with the purego build tag, it does
// nothing.
func (rs Resources) Prefetch() {
	if len(rs.entries) > 0 {
		prefetch.Lines(unsafe.Pointer(&rs.entries[0]), uintptr(len(rs.entries))*unsafe.Sizeof(rs.entries[0]))
	}
}
