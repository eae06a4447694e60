package sortertest

// Fairness exclusions: the resources named in Config.FairnessExcluded, and
// only those, count in no share.

// fairnessExcluded checks that resources named in Config.FairnessExcluded
// count in no share.
func fairnessExcluded(c checker) {
	// gpus do not count: a holds the only GPU yet has share 0.
	c.pool("cpus:100;gpus:1")
	c.add("a", "b")
	c.activate("a", "b")
	c.alloc("a", "s1", "gpus:1")
	c.alloc("b", "s1", "cpus:10")
	c.order("a", "b")
}

// notExcludedByDefault checks that without Config.FairnessExcluded every
// resource counts.
func notExcludedByDefault(c checker) {
	c.pool("cpus:100;gpus:1")
	c.add("a", "b")
	c.activate("a", "b")
	c.alloc("a", "s1", "gpus:1") // 1.0
	c.alloc("b", "s1", "cpus:10")
	c.order("b", "a")
}
