package books

import (
	"fmt"

	"github.com/allot-go/allot/allocator/internal/codec"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/sorter"
)

// FrameworkSorters returns the framework sorter of every role that has
// one, by role: what WalkSorters writes.
func (b *Books) FrameworkSorters() map[string]*roles.TrackedSorter {
	out := map[string]*roles.TrackedSorter{}
	for n := range b.Roles.Nodes.All() {
		if n.FrameworkSorter != nil {
			out[n.Path] = n.FrameworkSorter
		}
	}
	return out
}

// WalkSorters walks the sorters: the role sorter, then the framework
// sorter of each role in sorters with the salt it was made with. A reader
// makes each framework sorter with made, from the salt read, and puts it
// in sorters.
func (b *Books) WalkSorters(c *codec.Codec, sorters *map[string]*roles.TrackedSorter, made func(salt uint64) *roles.TrackedSorter) {
	c.Part("role sorter", func() { walkSorter(c, b.RoleSorter, "role sorter", "") })
	codec.WalkMap(c, sorters, "framework sorters", "framework sorter of role", func(role string, fs *roles.TrackedSorter) *roles.TrackedSorter {
		c.Item("framework sorter of role", role, func() {
			var salt uint64
			if fs != nil {
				salt = fs.Salt
			}
			c.Uvarint(&salt)
			if fs == nil && c.Err() == nil {
				fs = made(salt)
			}
			if fs != nil {
				walkSorter(c, fs, "framework sorter of role", role)
			}
		})
		return fs
	})
}

// sorterType names a sorter's type in a snapshot. A sorter.LazyDRF saves
// and restores the DRF sorter's state, byte for byte, so it is named as
// one: a snapshot of either restores into the other (the cache-free
// copies of allocatortest use the DRF sorter where the allocator uses the
// lazy one).
func sorterType(s sorter.Sorter) string {
	if _, lazy := s.(*sorter.LazyDRF); lazy {
		return fmt.Sprintf("%T", (*sorter.DRF)(nil))
	}
	return fmt.Sprintf("%T", s)
}

// walkSorter walks a sorter: the type of sorter it is, the totals version
// it was last told, and its own state (sorter.Snapshotter). A reader's
// sorter, made by the host's factory, must be of the saved type. kind and
// id name it.
func walkSorter(c *codec.Codec, ts *roles.TrackedSorter, kind, id string) {
	made := sorterType(ts.Sorter)
	typ := made
	c.String(&typ)
	c.Uvarint(&ts.TotalsVersion)
	if c.Err() != nil {
		return
	}
	if typ != made {
		c.Fail(fmt.Errorf("%w: saved a %s, the factory made a %s", codec.ErrSnapshotSorter, typ, made))
		return
	}
	sn, ok := ts.Sorter.(sorter.Snapshotter)
	if !ok {
		c.Fail(fmt.Errorf("%w: %T does not implement sorter.Snapshotter", codec.ErrSnapshotSorter, ts.Sorter))
		return
	}
	if err := c.Binary(sn, kind, id); err != nil {
		if c.Reading() {
			// The saved state does not read back: the snapshot is
			// damaged, not the host's sorter.
			c.Fail(fmt.Errorf("%w: %w", codec.ErrInvalidSnapshot, err))
			return
		}
		c.Fail(fmt.Errorf("%w: %T: %w", codec.ErrSnapshotSorter, ts.Sorter, err))
	}
}
