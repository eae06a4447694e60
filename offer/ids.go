package offer

// IDsFrom returns ids that go on after last: the next one is Prefix
// followed by last+1. A restored allocator numbers its offers on from where
// the saved one stopped with it.
func IDsFrom(prefix string, last uint64) IDs { return IDs{Prefix: prefix, last: last} }
