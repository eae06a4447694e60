package tables

// ByRole holds an agent's entries by role (its nobody entries, its refusal
// indexes). Most agents are looked at for one role or few, and a run reads
// the entries of every (agent, role) pair it visits: the first role's
// entry is kept in the agent itself, which spares a map (and its memory)
// and a lookup in it; other roles' go to a map.
type ByRole[V any] struct {
	Role  string // the role of first; "" when first is unused
	First V
	More  map[string]V
}

func (c *ByRole[V]) Get(role string) (V, bool) {
	if c.Role == role && role != "" {
		return c.First, true
	}
	v, ok := c.More[role]
	return v, ok
}

func (c *ByRole[V]) Set(role string, v V) {
	if c.Role == role {
		c.First = v
		return
	}
	if _, inMap := c.More[role]; c.Role == "" && !inMap {
		c.Role, c.First = role, v
		return
	}
	if c.More == nil {
		c.More = map[string]V{}
	}
	c.More[role] = v
}

func (c *ByRole[V]) Drop(role string) {
	if c.Role == role {
		var zero V
		c.Role, c.First = "", zero
		return
	}
	delete(c.More, role)
}

// Roles returns the roles with an entry, sorted.
func (c *ByRole[V]) Roles() []string { return AppendSortedKeys(nil, c.Role, c.More) }
